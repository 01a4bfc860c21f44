"""The built-in write tools by what they write, as rules and grants name them: labels or comments."""

LABEL_TOOLS = ("add_label", "remove_label")
COMMENT_TOOLS = ("post_comment",)

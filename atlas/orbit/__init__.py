"""The built-in tools: issues (`issues.py`), docs (`docs.py`), labels (`labels.py`) and comments
(`comments.py`), over the dataset that `db.py` opens.

They are declared with the tool contract (`atlas.tools`) like any plugin, and write only through
`atlas.tracker`.
"""

"""Everything that draws on or reads from the terminal."""

"""Models behind one small interface."""

"""unonet command line."""

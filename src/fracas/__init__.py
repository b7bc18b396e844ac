"""fracas."""

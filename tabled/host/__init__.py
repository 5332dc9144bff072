"""What the table PC gives every layer above the pure rules: files only the owner reads, bounded
documents, output that never blocks, and the log."""

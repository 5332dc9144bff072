"""The journal: the record and its hash, the store that appends and reads records, and the seals
that sign its commits. Shared by the table, the floor, the reports' command and the tools."""

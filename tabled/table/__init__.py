"""The pure fold of the table: every rule judgement about a round and the table, no I/O."""

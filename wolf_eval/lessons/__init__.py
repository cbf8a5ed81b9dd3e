"""The Jester's learning loop: its model's immutable lessons snapshots, the lessons call and the run."""

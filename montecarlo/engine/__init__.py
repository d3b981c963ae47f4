"""Game-agnostic machinery: seeding, chunked parallel runs, statistics, dice primitives."""

//! Scheduler tables: tournaments, their players, rounds and pairings; the matchmaking queue.

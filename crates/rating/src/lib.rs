//! Pure rating maths: FIDE Elo and Glicko-2. No IO, no clock, no async.

//! Pure reference bot strategies. No IO, no clock reads: time budgets arrive as values.

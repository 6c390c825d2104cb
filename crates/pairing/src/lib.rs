//! Pure tournament pairing: Swiss (FIDE Dutch), round robin, tie-breaks, TRF. No IO, no clock.

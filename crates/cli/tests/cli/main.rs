//! The integration tests of the `hanniball` binary, as one test binary (one link instead of one
//! per file): a module per area, named as the file that was its own binary before.

mod common;

mod admin_rotation;
mod axe;
mod bot_runner;
mod browser;
mod browser_languages;
mod console;
mod console_browser;
mod details;
mod edge_fuzz;
mod game_records;
mod messages;
mod metrics;
mod names;
mod organiser;
mod replicas;
mod rules_cli;
mod self_service_cli;
mod serve;
mod split;
mod swiss_cli;
mod system;
mod tls;
mod web;

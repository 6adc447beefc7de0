//! The `gate` binary: parse the command line, run the verb, exit with its code.

use clap::Parser;

fn main() {
    let cli = gate::cli::Cli::parse();
    std::process::exit(gate::commands::run(cli));
}

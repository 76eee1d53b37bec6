//! The `bohf` command.
fn main() {
    eprintln!("bohf: the command-line interface is being built");
    std::process::exit(2);
}

//! Runs an experiment spec and writes its results folder (spec, CSV, JSON summary, plots): the
//! library-only version of `bohf run` (which adds progress, resume and shards):
//!
//! ```text
//! cargo run --release -p bohf-registry --example run_spec -- SPEC.toml OUT_DIR [THREADS]
//! ```

use bohf_experiments::{Experiment, ExperimentSpec, write_results};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: run_spec SPEC.toml OUT_DIR [THREADS]");
        std::process::exit(2);
    }
    let threads: usize = args.get(3).map(|s| s.parse()).transpose()?.unwrap_or(0);
    let spec = ExperimentSpec::from_file(&args[1])?;
    let experiment = Experiment::new(spec, &bohf_registry::builtin())?;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build()?;
    let start = std::time::Instant::now();
    let results = pool.install(|| experiment.run())?;
    let elapsed = start.elapsed().as_secs_f64();
    let files = write_results(&results, &args[2])?;
    let summary = results.summary()?;
    println!("{}\n", summary.title);
    print!("{}", summary.markdown_table());
    println!(
        "\n{} runs in {elapsed:.2} s; results in {}",
        results.runs().len(),
        files.steps.parent().unwrap().display()
    );
    Ok(())
}

//! The `bohf` command: run and reproduce experiments, plot and summarise them, and let a person
//! answer an algorithm's queries live. See `docs/cli.md`.

mod ask;
mod check;
mod leaderboard;
mod presets;
mod progress;
mod reference;
mod report;

use bohf_experiments::folder;
use bohf_experiments::{Experiment, ExperimentError, ExperimentSpec, Metric};
use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};
use std::path::{Path, PathBuf};

/// An error of the command: a message for the person at the terminal.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// From the experiment layer.
    #[error(transparent)]
    Experiment(#[from] ExperimentError),
    /// Anything else, already worded for the user.
    #[error("{0}")]
    Message(String),
}

impl CliError {
    /// An error with this message.
    pub fn msg(m: impl Into<String>) -> Self {
        CliError::Message(m.into())
    }
}

/// Reads and checks a spec file and builds the experiment (loading its data). An svm problem
/// without a `cache` caches its table beside the results folder `out` (default `results/NAME`).
pub fn load_experiment(path: &Path, out: Option<&Path>) -> Result<Experiment, CliError> {
    let spec = ExperimentSpec::from_file(path)?;
    let out = out.map_or_else(|| PathBuf::from("results").join(&spec.name), Path::to_path_buf);
    let spec = bohf_experiments::folder::with_default_cache(spec, &out);
    // A relative data path made absolute, so that a missing file is reported by its full path.
    let spec = bohf_experiments::folder::stored_spec(spec);
    Experiment::new(spec, &bohf_registry::builtin()).map_err(|e| CliError::msg(format!("`{}`: {e}", path.display())))
}

#[derive(Parser, Debug)]
#[command(
    name = "bohf",
    version,
    about = "Bayesian optimisation from human feedback: run and reproduce experiments, plot them, answer queries live",
    after_help = "Examples:\n  bohf reproduce --list\n  bohf reproduce pfts-fig2-ackley\n  bohf leaderboard --quick\n  bohf run specs/pfts-fig4-rkhs.toml --out results/fig4 --threads 2\n  bohf summary results/fig4\n  bohf ask new coffee.json --spec coffee.toml && bohf ask coffee.json\n\nDocumentation: docs/cli.md"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Args, Debug, Clone)]
struct RunArgs {
    /// The results folder (default: results/<spec name>).
    #[arg(long, short)]
    out: Option<PathBuf>,
    /// Worker threads (default: one per core; at most 1024). Results do not depend on it.
    #[arg(long, short = 'j', default_value_t = 0, value_parser = clap::value_parser!(u16).range(0..=1024))]
    threads: u16,
    /// Run only every N-th run starting at K (0 ≤ K < N), e.g. --shard $SLURM_ARRAY_TASK_ID/4.
    #[arg(long, value_name = "K/N", value_parser = bohf_experiments::folder::parse_shard)]
    shard: Option<(usize, usize)>,
    /// Continue in a folder that already holds finished runs of the same spec (skipping them, and
    /// continuing unfinished runs from their checkpoints).
    #[arg(long)]
    resume: bool,
    /// Save a checkpoint of each unfinished run at most every SECONDS of wall time, for
    /// algorithms that save their state (COBOL); 0 turns checkpoints off.
    #[arg(long, value_name = "SECONDS", default_value_t = bohf_experiments::checkpoint::DEFAULT_CHECKPOINT_EVERY.as_secs())]
    checkpoint_every: u64,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run an experiment spec; each finished run is saved at once (resumable, shardable).
    #[command(after_help = "Examples:\n  bohf run specs/pfts-fig4-rkhs.toml --out results/fig4\n  \
        bohf run spec.toml --out results/x --resume        # after an interruption\n  \
        bohf run spec.toml --out results/x --shard 0/4     # one of four batch jobs; then: bohf merge results/x\n\n\
        The folder gets spec.toml, runs/ (one CSV per finished run), and when all runs are done steps.csv,\n\
        summary.json and regret plots. The spec format is described in docs/experiments.md.")]
    Run {
        /// The experiment spec (TOML).
        spec: PathBuf,
        #[command(flatten)]
        run: RunArgs,
    },
    /// Combine the runs of shard folders into one result set (the folders must hold the same spec).
    #[command(
        after_help = "Examples:\n  bohf merge results/x                    # shards that wrote into one folder\n  \
        bohf merge node1/x node2/x --out results/x"
    )]
    Merge {
        /// Results folders of `bohf run` (with the same spec).
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// Where to write the merged results (default: the first folder).
        #[arg(long, short)]
        out: Option<PathBuf>,
    },
    /// Run a paper's experiment from a named preset and write its report.
    #[command(
        after_help = "Examples:\n  bohf reproduce --list\n  bohf reproduce pfts-fig2-ackley              # the main job, ~5 s on 2 cores\n  \
        bohf reproduce mrlpf-fig1a-rkhs-se --quick   # seconds: 3 runs, T = 40\n  \
        bohf reproduce pfts-fig2-catalyst --data ../shared/data/ocx24/ExpDataDump_241113_clean.csv\n  \
        bohf reproduce popbo-table2                  # POP-BO Table 2, ~3 min\n  \
        bohf reproduce popbo-table2-box              # the same, x over the box, ~3 min\n\n\
        The presets are the spec files of --specs DIR (default: the source tree's specs/).\n\
        The folder gets the spec used (spec.toml, to copy and edit), the runs, NAME.md (settings, table,\n\
        the paper's claims judged), plots and summary.json."
    )]
    Reproduce {
        /// The preset (see --list).
        #[arg(required_unless_present = "list")]
        name: Option<String>,
        /// List the presets with their paper and figure.
        #[arg(long)]
        list: bool,
        /// Runs per algorithm (default: the paper's).
        #[arg(long)]
        runs: Option<usize>,
        /// A reduced version: at most 3 runs and T = 40 (seconds).
        #[arg(long)]
        quick: bool,
        /// The data file (the catalyst preset's OCx24 CSV, the SVM presets' magic04.data).
        #[arg(long)]
        data: Option<PathBuf>,
        /// The presets folder (default: the specs/ folder of the source tree bohf was built from).
        #[arg(long, value_name = "DIR")]
        specs: Option<PathBuf>,
        #[command(flatten)]
        run: RunArgs,
    },
    /// Run every duel algorithm on the leaderboard suite and write the page that ranks them.
    #[command(
        after_help = "Examples:\n  bohf leaderboard --quick                  # minutes: 3 runs, T = 40 per problem\n  \
        bohf leaderboard -j 2 --page docs         # the full suite; writes docs/leaderboard.md\n  \
        bohf leaderboard --resume                 # after an interruption\n  \
        bohf leaderboard rkhs-1d branin --quick   # some problems only\n  \
        bohf leaderboard --resume catalyst --data ../shared/data/ocx24   # one problem, merged into the page\n\n\
        The suite is the spec files of --specs DIR (default: the source tree's specs/leaderboard/), one per\n\
        problem. Runs go to OUT/<problem>/ (as bohf run); the page to PAGE/leaderboard.md with its plots in\n\
        PAGE/leaderboard/ (and the boards it shows in PAGE/leaderboard/boards.json: a call on some problems\n\
        replaces theirs and keeps the others). See docs/leaderboard.md."
    )]
    Leaderboard {
        /// The problems to run (spec names of the suite); all by default.
        problems: Vec<String>,
        /// The runs' folder (default: results/leaderboard, or results/leaderboard-quick).
        #[arg(long, short)]
        out: Option<PathBuf>,
        /// The folder of the page (default: the runs' folder).
        #[arg(long)]
        page: Option<PathBuf>,
        /// The suite folder (default: the specs/leaderboard/ folder of the source tree bohf was built from).
        #[arg(long, value_name = "DIR")]
        specs: Option<PathBuf>,
        /// Worker threads (default: one per core; at most 1024). Results do not depend on it.
        #[arg(long, short = 'j', default_value_t = 0, value_parser = clap::value_parser!(u16).range(0..=1024))]
        threads: u16,
        /// Continue in folders that already hold finished runs of the same specs (skipping them).
        #[arg(long)]
        resume: bool,
        /// A reduced version: at most 3 runs and T = 40 per problem.
        #[arg(long)]
        quick: bool,
        /// Runs per algorithm (default: the specs', 30).
        #[arg(long)]
        runs: Option<usize>,
        /// The folder of the data sets (the catalyst problem's OCx24 CSV), e.g. ../shared/data/ocx24
        /// (or its parent); default: the paths the specs write. A problem whose data is missing is
        /// skipped with a note (or, named on the command line, stops the command before anything runs).
        #[arg(long, value_name = "DIR")]
        data: Option<PathBuf>,
    },
    /// Plot regret curves (mean ± 1 s.e. per algorithm) of a results folder.
    #[command(
        after_help = "Examples:\n  bohf plot results/fig4\n  bohf plot results/fig4 --metric simple --out simple.svg\n  \
        bohf plot results/fig4 --metric simple-gap --grid   # u* − u(x̂_t), one small chart per algorithm"
    )]
    Plot {
        /// A results folder (with summary.json).
        dir: PathBuf,
        /// The image (.png or .svg; default DIR/regret_<metric>.png).
        #[arg(long, short)]
        out: Option<PathBuf>,
        /// Which regret: the preference regrets (instantaneous, cumulative, simple) or the utility gaps
        /// (instantaneous-gap, cumulative-gap, simple-gap: u* − u(x̂_t), in the problem's units).
        #[arg(long, value_enum, default_value_t = MetricArg::Cumulative)]
        metric: MetricArg,
        /// One small chart per algorithm on shared axes (for many algorithms) instead of one chart.
        #[arg(long)]
        grid: bool,
    },
    /// Print the regret at the horizon (mean ± s.e.) and wall time per run of a results folder.
    #[command(after_help = "Examples:\n  bohf summary results/fig4\n  bohf summary results/fig4 --format markdown")]
    Summary {
        /// A results folder (with summary.json).
        dir: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
    },
    /// Check a spec without running it: an experiment spec (as `bohf run` loads it) or a session spec.
    #[command(after_help = "Examples:\n  bohf check specs/pfts-fig4-rkhs.toml\n  \
        bohf check --ask docs/examples/ask/coffee.toml\n\n\
        The kind of spec is detected from its keys unless --ask is given. Exit status 0 if the spec is valid\n\
        (a summary is printed), 1 otherwise (the error names the field).")]
    Check {
        /// The spec (TOML).
        spec: PathBuf,
        /// Read it as a session spec of `bohf ask new`.
        #[arg(long)]
        ask: bool,
    },
    /// Answer an algorithm's queries yourself (a duel, a label or a value at a time).
    #[command(
        args_conflicts_with_subcommands = true,
        after_help = "Examples:\n  bohf ask new coffee.json --spec coffee.toml   # start a session\n  \
            bohf ask coffee.json                          # answer queries (q to stop; run again to continue)\n  \
            bohf ask coffee.json --json                   # JSON lines on stdin/stdout (docs/ask-protocol.md)"
    )]
    Ask {
        #[command(subcommand)]
        new: Option<AskCommand>,
        /// The session file.
        session: Option<PathBuf>,
        /// Speak JSON lines on stdin/stdout instead of prompting.
        #[arg(long)]
        json: bool,
    },
    /// Serve a session (or a study of one session per participant) as a web page to answer in a browser.
    #[command(after_help = "Examples:\n  bohf ask new coffee.json --spec coffee.toml\n  \
            bohf serve coffee.json                 # prints the page's address (http://127.0.0.1:8080/p/TOKEN/)\n  \
            bohf serve --study study/ --port 9000  # study/study.toml [+ participants.txt]; prints every address\n\n\
            Listens on 127.0.0.1 unless --host says otherwise; every page's address holds an unguessable token.\n\
            See docs/serve.md.")]
    Serve {
        /// The session file (from `bohf ask new`).
        #[arg(required_unless_present = "study", conflicts_with = "study")]
        session: Option<PathBuf>,
        /// A study folder: `study.toml` (the session spec), optionally `participants.txt`.
        #[arg(long)]
        study: Option<PathBuf>,
        /// The port (0: any free port).
        #[arg(long, default_value_t = 8080)]
        port: u16,
        /// The address to listen on (e.g. 0.0.0.0 for every interface; the pages still need their token).
        #[arg(long, default_value = "127.0.0.1")]
        host: std::net::IpAddr,
        /// Open connections at most (lowered at start to fit the open-file limit, `ulimit -n`).
        #[arg(long, default_value_t = bohf_serve::Limits::default().max_connections)]
        max_connections: usize,
        /// Open connections from one IP address at most.
        #[arg(long, default_value_t = bohf_serve::Limits::default().max_per_client)]
        max_per_client: usize,
        /// Seconds a connection has to send a request's head (also closes a connection that sends nothing).
        #[arg(long, default_value_t = bohf_serve::Limits::default().header_timeout.as_secs_f64())]
        header_timeout: f64,
        /// Seconds from a request's head to its response (reading the body included), else 408.
        #[arg(long, default_value_t = bohf_serve::Limits::default().request_timeout.as_secs_f64())]
        request_timeout: f64,
        /// Seconds a connection may move no byte before it is closed (longer than --request-timeout).
        #[arg(long, default_value_t = bohf_serve::Limits::default().idle_timeout.as_secs_f64())]
        idle_timeout: f64,
        /// A study without participants.txt: participants `/join` may create at most (in all).
        #[arg(long, default_value_t = bohf_serve::Limits::default().max_participants)]
        max_participants: usize,
        /// A study without participants.txt: joins per minute at most from one IP address.
        #[arg(long, default_value_t = bohf_serve::Limits::default().joins_per_minute)]
        joins_per_minute: u32,
    },
}

#[derive(Subcommand, Debug)]
enum AskCommand {
    /// Start a session from a spec (candidates: a CSV of named options, or a box with named dimensions).
    #[command(after_help = "Example spec (coffee.toml):\n  name = \"coffee\"\n  budget = 12\n  seed = 7\n  \
        [candidates]\n  csv = \"beans.csv\"      # a `name` column and numeric attribute columns\n  \
        [algorithm]\n  name = \"pf-ts\"\n\nSee docs/cli.md for the box form and the options.")]
    New {
        /// The session file to create.
        session: PathBuf,
        /// The session spec (TOML).
        #[arg(long)]
        spec: PathBuf,
        /// Replace an existing session file.
        #[arg(long)]
        force: bool,
    },
}

#[derive(ValueEnum, Debug, Clone, Copy)]
enum MetricArg {
    Instantaneous,
    Cumulative,
    Simple,
    InstantaneousGap,
    CumulativeGap,
    SimpleGap,
}

impl From<MetricArg> for Metric {
    fn from(m: MetricArg) -> Self {
        match m {
            MetricArg::Instantaneous => Metric::Instantaneous,
            MetricArg::Cumulative => Metric::Cumulative,
            MetricArg::Simple => Metric::Simple,
            MetricArg::InstantaneousGap => Metric::InstantaneousGap,
            MetricArg::CumulativeGap => Metric::CumulativeGap,
            MetricArg::SimpleGap => Metric::SimpleGap,
        }
    }
}

#[derive(ValueEnum, Debug, Clone, Copy)]
enum Format {
    Table,
    Markdown,
    Csv,
}

fn run_options(args: &RunArgs, default_out: PathBuf) -> folder::RunOptions {
    folder::RunOptions {
        out: args.out.clone().unwrap_or(default_out),
        threads: usize::from(args.threads),
        shard: args.shard,
        resume: args.resume,
        checkpoint_every: (args.checkpoint_every > 0).then(|| std::time::Duration::from_secs(args.checkpoint_every)),
    }
}

/// Exit status 1 for an error of the command; clap exits with 2 for usage errors (docs/cli.md).
fn main() {
    // `BOHF_MARKDOWN_HELP=1 bohf`: the reference page docs/generated/cli.md, for `cargo xtask docs`.
    if std::env::var_os(reference::ENV).is_some_and(|v| v == "1") {
        print!("{}", reference::markdown(Cli::command()));
        return;
    }
    let cli = Cli::parse();
    if let Err(e) = dispatch(cli.command) {
        eprintln!("bohf: error: {e}");
        std::process::exit(1);
    }
}

// Long: one arm per subcommand, each a few lines calling the library; the one match is the CLI's table of contents.
fn dispatch(command: Command) -> Result<(), CliError> {
    match command {
        Command::Run { spec, run } => {
            let experiment = load_experiment(&spec, run.out.as_deref())?;
            let opts = run_options(&run, PathBuf::from("results").join(&experiment.spec().name));
            match folder::run_experiment(&experiment, &opts, &*progress::for_stderr())? {
                folder::Outcome::Complete(results) => {
                    print!("{}", report::terminal_table(&results.summary()?));
                    println!("\nresults in {}", opts.out.display());
                }
                folder::Outcome::ShardDone { mine, finished, total } => println!(
                    "shard done ({mine} runs); {finished} of {total} runs finished in `{}`; \
                     run `bohf merge` once every shard is done",
                    opts.out.display()
                ),
            }
        }
        Command::Merge { dirs, out } => {
            let out = out.unwrap_or_else(|| dirs[0].clone());
            let results = folder::merge(&dirs, &out, &bohf_registry::builtin(), &*progress::for_stderr())?;
            print!("{}", report::terminal_table(&results.summary()?));
            println!("\nmerged {} runs into {}", results.runs().len(), out.display());
        }
        Command::Reproduce { name, list, runs, quick, data, specs, run } => {
            let all = presets::load(specs.as_deref())?;
            if list {
                print!("{}", presets::list(&all));
                return Ok(());
            }
            let name = name.expect("clap requires NAME without --list");
            let preset = presets::find(&all, &name)?;
            if runs == Some(0) {
                return Err(CliError::msg("--runs must be at least 1"));
            }
            let default_out = PathBuf::from("results").join(if quick { format!("{name}-quick") } else { name.clone() });
            let opts = presets::ReproduceOptions { quick, runs, data, run: run_options(&run, default_out) };
            if let Some(report) = presets::reproduce(preset, &opts)? {
                println!("\nreport: {}\nresults in {}", report.display(), opts.run.out.display());
            }
        }
        Command::Leaderboard { problems, out, page, specs, threads, resume, quick, runs, data } => {
            let out = out.unwrap_or_else(|| {
                PathBuf::from("results").join(if quick { "leaderboard-quick" } else { "leaderboard" })
            });
            let page = page.unwrap_or_else(|| out.clone());
            let opts = leaderboard::LeaderboardOptions {
                problems,
                out,
                page,
                specs,
                threads: usize::from(threads),
                resume,
                quick,
                runs,
                data,
            };
            let page = leaderboard::leaderboard(&opts)?;
            println!("page: {}\nruns in {}", page.display(), opts.out.display());
        }
        Command::Plot { dir, out, metric, grid } => {
            let path = report::plot(&dir, out, metric.into(), grid)?;
            println!("{}", path.display());
        }
        Command::Summary { dir, format } => {
            let s = report::load_summary(&dir)?;
            match format {
                Format::Table => print!("{}", report::terminal_table(&s)),
                Format::Markdown => print!("{}", s.markdown_table()),
                Format::Csv => print!("{}", report::csv_table(&s)),
            }
        }
        Command::Check { spec, ask } => {
            print!("{}", check::check(&spec, ask.then_some(check::SpecKind::Ask))?);
        }
        Command::Ask { new, session, json } => match (new, session) {
            (Some(AskCommand::New { session, spec, force }), _) => ask::new_session(&session, &spec, force)?,
            (None, Some(session)) => ask::ask(&session, json)?,
            (None, None) => {
                return Err(CliError::msg("give a session file (bohf ask SESSION.json) or `bohf ask new`"));
            }
        },
        Command::Serve {
            session,
            study,
            port,
            host,
            max_connections,
            max_per_client,
            header_timeout,
            request_timeout,
            idle_timeout,
            max_participants,
            joins_per_minute,
        } => {
            let mode = match (session, study) {
                (_, Some(dir)) => bohf_serve::Mode::Study(dir),
                (Some(path), None) => bohf_serve::Mode::Single(path),
                (None, None) => return Err(CliError::msg("give a session file or --study DIR")),
            };
            let seconds = |name: &str, s: f64| {
                std::time::Duration::try_from_secs_f64(s).map_err(|_| {
                    CliError::msg(format!("--{name}: {s} is not a number of seconds (give a finite number ≥ 0)"))
                })
            };
            let limits = bohf_serve::Limits {
                max_connections,
                max_per_client,
                header_timeout: seconds("header-timeout", header_timeout)?,
                request_timeout: seconds("request-timeout", request_timeout)?,
                idle_timeout: seconds("idle-timeout", idle_timeout)?,
                max_participants,
                joins_per_minute,
            };
            let server = bohf_serve::Server::bind(&bohf_serve::Options { host, port, mode, limits })
                .map_err(|e| CliError::msg(e.to_string()))?;
            if !host.is_loopback() {
                eprintln!(
                    "warning: listening on {host}, reachable from other machines over plain HTTP; \
                     only the addresses below (with their tokens) open a page; put a TLS proxy in front \
                     (docs/serve.md#security)"
                );
            }
            eprintln!("at most {} connections at once, {max_per_client} per address", server.max_connections());
            for (who, url) in server.urls() {
                println!("{who}: {url}");
            }
            println!("answers are saved as they come; stop with Ctrl-C");
            use std::io::Write;
            std::io::stdout().flush().ok();
            server.run().map_err(|e| CliError::msg(e.to_string()))?;
        }
    }
    Ok(())
}

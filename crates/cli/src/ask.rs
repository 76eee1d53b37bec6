//! `bohf ask`: a person answers an algorithm's queries, one at a time, in a session that survives
//! interruptions.
//!
//! A session file is JSON `{"body": …, "checksum": "fnv1a64:…"}`. The body holds the session spec,
//! the candidates (names and raw attribute values, copied from the CSV or the box so that the
//! session does not depend on the file any more), the seed and every answered query. Loading
//! replays the history through a freshly built algorithm with the same random stream, checking that
//! it asks the same queries again. The checksum is FNV-1a (64 bit) of the body's compact JSON: it
//! detects accidental damage (truncation, a hand edit), not tampering. The file is rewritten after
//! every answer by temp file + rename, and the previous good version is kept as `SESSION.json.bak`.
//!
//! The algorithm sees the candidates' attributes scaled to [0, 1] per attribute (min–max over the
//! candidates; a constant attribute becomes 0), so the default length-scale 0.1 of the kernels
//! means a tenth of each attribute's range.

use crate::CliError;
use bohf_core::{Answer, FiniteDomain, Query, SearchContext, rng};
use bohf_experiments::{AlgorithmSpec, BoxedOptimizer, Registry, write_atomic};
use bohf_problems::datasets::CsvTable;
use serde::{Deserialize, Serialize};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

/// The session spec (TOML), see `docs/cli.md`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AskSpec {
    /// A short name.
    pub name: String,
    /// The question shown above each duel (default: "Which do you prefer?").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question: Option<String>,
    /// The number of queries to ask (the horizon T).
    pub budget: usize,
    /// The seed of the algorithm's random stream.
    #[serde(default)]
    pub seed: u64,
    /// The candidates.
    pub candidates: CandidatesSpec,
    /// The algorithm (a name of the registry and its parameters).
    pub algorithm: AlgorithmSpec,
}

/// `[candidates]`: exactly one of `csv` and `box`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CandidatesSpec {
    /// A CSV file: a `name` column (or the first column) and numeric attribute columns; relative to
    /// the spec file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub csv: Option<PathBuf>,
    /// A box with named dimensions, gridded.
    #[serde(default, rename = "box", skip_serializing_if = "Option::is_none")]
    pub grid: Option<BoxSpec>,
}

/// `[candidates.box]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoxSpec {
    /// The names of the dimensions.
    pub names: Vec<String>,
    /// Lower corner.
    pub lower: Vec<f64>,
    /// Upper corner.
    pub upper: Vec<f64>,
    /// Grid points per dimension (≥ 2).
    #[serde(default = "default_points")]
    pub points_per_dim: usize,
}

fn default_points() -> usize {
    5
}

/// The candidates as the person sees them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Candidates {
    /// Attribute names.
    pub attributes: Vec<String>,
    /// Candidate names.
    pub names: Vec<String>,
    /// Raw attribute values, one row per candidate.
    pub values: Vec<Vec<f64>>,
}

impl Candidates {
    /// The domain the algorithm sees: every attribute min–max scaled to [0, 1].
    pub fn domain(&self) -> Result<FiniteDomain, CliError> {
        let d = self.attributes.len();
        let mut rows = self.values.clone();
        for j in 0..d {
            let lo = self.values.iter().map(|r| r[j]).fold(f64::INFINITY, f64::min);
            let hi = self.values.iter().map(|r| r[j]).fold(f64::NEG_INFINITY, f64::max);
            for r in &mut rows {
                r[j] = if hi > lo { (r[j] - lo) / (hi - lo) } else { 0.0 };
            }
        }
        FiniteDomain::from_rows(&rows)
            .and_then(|dom| dom.with_names(self.names.clone()))
            .map_err(|e| CliError::msg(format!("candidates: {e}")))
    }

    fn describe(&self, i: usize) -> String {
        let attrs: Vec<String> =
            self.attributes.iter().zip(&self.values[i]).map(|(a, v)| format!("{a} = {}", fmt_num(*v))).collect();
        format!("{} ({})", self.names[i], attrs.join(", "))
    }

    fn json(&self, i: usize) -> serde_json::Value {
        let attrs: serde_json::Map<String, serde_json::Value> =
            self.attributes.iter().zip(&self.values[i]).map(|(a, v)| (a.clone(), serde_json::json!(v))).collect();
        serde_json::json!({ "index": i, "name": self.names[i], "attributes": attrs })
    }
}

fn fmt_num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 { format!("{v:.0}") } else { format!("{}", (v * 1e6).round() / 1e6) }
}

/// A query by candidate indices, as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum StoredQuery {
    /// A or B.
    Duel {
        /// Option A.
        a: usize,
        /// Option B.
        b: usize,
    },
    /// Accept or reject.
    Label {
        /// The option.
        x: usize,
    },
    /// A number.
    Value {
        /// The option.
        x: usize,
    },
}

impl StoredQuery {
    fn of(q: &Query) -> Result<Self, CliError> {
        let idx = |p: &bohf_core::Point| {
            p.index.ok_or_else(|| CliError::msg("the algorithm asked about a point that is not a candidate"))
        };
        Ok(match q {
            Query::Duel(x, y) => StoredQuery::Duel { a: idx(x)?, b: idx(y)? },
            Query::Label(x) => StoredQuery::Label { x: idx(x)? },
            Query::Evaluate(x) => StoredQuery::Value { x: idx(x)? },
        })
    }

    fn fits(&self, a: &Answer) -> bool {
        matches!(
            (self, a),
            (StoredQuery::Duel { .. }, Answer::Duel { .. })
                | (StoredQuery::Label { .. }, Answer::Label { .. })
                | (StoredQuery::Value { .. }, Answer::Value(_))
        )
    }
}

/// One answered query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// What was asked.
    pub query: StoredQuery,
    /// The answer.
    pub answer: Answer,
}

/// Everything a session holds (the checksummed part of the file).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionBody {
    /// Always `bohf-ask-session`.
    pub format: String,
    /// The format version (1).
    pub version: u32,
    /// The session spec.
    pub spec: AskSpec,
    /// The candidates.
    pub candidates: Candidates,
    /// The answered queries, in order.
    pub history: Vec<Step>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SessionFile {
    body: SessionBody,
    checksum: String,
}

const FORMAT: &str = "bohf-ask-session";

/// FNV-1a, 64 bit.
fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

fn checksum(body: &SessionBody) -> Result<String, CliError> {
    let compact = serde_json::to_string(body).map_err(|e| CliError::msg(format!("cannot write the session: {e}")))?;
    Ok(format!("fnv1a64:{:016x}", fnv1a64(compact.as_bytes())))
}

fn session_text(body: &SessionBody) -> Result<String, CliError> {
    let file = SessionFile { body: body.clone(), checksum: checksum(body)? };
    serde_json::to_string_pretty(&file)
        .map(|s| s + "\n")
        .map_err(|e| CliError::msg(format!("cannot write the session: {e}")))
}

/// Why a session file cannot be used.
fn damaged(path: &Path, why: &str) -> CliError {
    let bak = backup_path(path);
    let backup = match std::fs::read_to_string(&bak).ok().and_then(|t| parse_session(&t).ok()) {
        Some(b) => format!(
            "; the previous good copy `{}` holds {} answer(s): check it and copy it over `{}` to continue from it",
            bak.display(),
            b.history.len(),
            path.display()
        ),
        None => String::new(),
    };
    CliError::msg(format!(
        "session file `{}` is damaged ({why}); it was left as it is, nothing was written{backup}",
        path.display()
    ))
}

fn parse_session(text: &str) -> Result<SessionBody, String> {
    let file: SessionFile = serde_json::from_str(text)
        .map_err(|e| if e.is_eof() { format!("truncated: {e}") } else { format!("not a valid session file: {e}") })?;
    if file.body.format != FORMAT || file.body.version != 1 {
        return Err(format!("unknown format `{}` version {}", file.body.format, file.body.version));
    }
    let want = checksum(&file.body).map_err(|e| e.to_string())?;
    if want != file.checksum {
        return Err(format!("checksum mismatch: the file says {}, its content gives {want}", file.checksum));
    }
    Ok(file.body)
}

fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push(".bak");
    path.with_file_name(name)
}

/// Reads a session spec; a relative CSV path is resolved against the spec's folder.
pub fn read_spec(path: &Path) -> Result<AskSpec, CliError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| CliError::msg(format!("cannot read session spec `{}`: {e}", path.display())))?;
    let mut spec: AskSpec = toml::from_str(&text)
        .map_err(|e| CliError::msg(format!("cannot parse session spec `{}`: {e}", path.display())))?;
    if let Some(csv) = &mut spec.candidates.csv
        && csv.is_relative()
        && let Some(dir) = path.parent()
    {
        *csv = dir.join(&*csv);
    }
    Ok(spec)
}

/// The candidates of a spec (reads the CSV).
pub fn load_candidates(spec: &AskSpec) -> Result<Candidates, CliError> {
    match (&spec.candidates.csv, &spec.candidates.grid) {
        (Some(csv), None) => {
            if !csv.exists() {
                return Err(CliError::msg(format!("candidates.csv: file not found: `{}`", csv.display())));
            }
            let table = CsvTable::read(csv).map_err(|e| CliError::msg(format!("candidates.csv: {e}")))?;
            let header = table.header().to_vec();
            let name_col = header.iter().position(|h| h.eq_ignore_ascii_case("name")).unwrap_or(0);
            let attr_cols: Vec<usize> = (0..header.len()).filter(|&j| j != name_col).collect();
            if attr_cols.is_empty() {
                return Err(CliError::msg(format!(
                    "candidates.csv `{}`: need a name column and at least one numeric attribute column",
                    csv.display()
                )));
            }
            let mut names = Vec::new();
            let mut values = Vec::new();
            for (line, rec) in table.records() {
                names.push(rec[name_col].clone());
                let row: Vec<f64> = attr_cols
                    .iter()
                    .map(|&j| table.number(line, rec, j))
                    .collect::<Result<_, _>>()
                    .map_err(|e| CliError::msg(format!("candidates.csv: {e}")))?;
                values.push(row);
            }
            if names.len() < 2 {
                return Err(CliError::msg(format!(
                    "candidates.csv `{}`: need at least two options, got {}",
                    csv.display(),
                    names.len()
                )));
            }
            Ok(Candidates { attributes: attr_cols.iter().map(|&j| header[j].clone()).collect(), names, values })
        }
        (None, Some(b)) => {
            let d = b.names.len();
            if d == 0 || b.lower.len() != d || b.upper.len() != d {
                return Err(CliError::msg(format!(
                    "candidates.box: names, lower and upper must have the same non-zero length, got {}, {}, {}",
                    d,
                    b.lower.len(),
                    b.upper.len()
                )));
            }
            if b.points_per_dim < 2 {
                return Err(CliError::msg(format!(
                    "candidates.box.points_per_dim: need at least 2, got {}",
                    b.points_per_dim
                )));
            }
            let domain = bohf_core::BoxDomain::new(b.lower.clone(), b.upper.clone())
                .and_then(|bx| bx.grid(b.points_per_dim))
                .map_err(|e| CliError::msg(format!("candidates.box: {e}")))?;
            let values: Vec<Vec<f64>> = (0..domain.len()).map(|i| domain.coords(i).expect("index in range")).collect();
            let names = (1..=values.len()).map(|i| format!("#{i}")).collect();
            Ok(Candidates { attributes: b.names.clone(), names, values })
        }
        _ => Err(CliError::msg("candidates: give exactly one of `csv = \"FILE\"` and `[candidates.box]`")),
    }
}

/// A live session: the algorithm after replaying the history.
struct Live {
    body: SessionBody,
    optimizer: BoxedOptimizer,
    rng: bohf_core::BohfRng,
    /// The query being asked (suggested, not yet answered).
    pending: Option<Query>,
    /// The text of the last good file (becomes the backup at the next save).
    last_good: String,
}

fn build(body: &SessionBody) -> Result<(BoxedOptimizer, bohf_core::BohfRng), CliError> {
    let registry = Registry::builtin();
    let a = &body.spec.algorithm;
    let entry =
        registry.get(&a.name).ok_or_else(|| CliError::Experiment(registry.unknown("algorithm.name", &a.name)))?;
    entry.check(&a.params, "algorithm.params")?;
    let ctx = SearchContext::new(body.candidates.domain()?, body.spec.budget)
        .map_err(|e| CliError::msg(format!("budget: {e}")))?;
    let optimizer = entry.build(&ctx, &a.params).map_err(|e| CliError::msg(format!("algorithm: {e}")))?;
    Ok((optimizer, rng::seeded(body.spec.seed)))
}

impl Live {
    fn replay(body: SessionBody, text: String) -> Result<Self, CliError> {
        let (mut optimizer, mut rng) = build(&body)?;
        for (t, step) in body.history.iter().enumerate() {
            let q = optimizer.suggest(&mut rng).map_err(|e| CliError::msg(format!("replay, query {}: {e}", t + 1)))?;
            if StoredQuery::of(&q)? != step.query {
                return Err(CliError::msg(format!(
                    "replay diverged at query {}: the algorithm now asks {:?}, the session recorded {:?} \
                     (was the session made by another version of bohf?)",
                    t + 1,
                    StoredQuery::of(&q)?,
                    step.query
                )));
            }
            if !step.query.fits(&step.answer) {
                return Err(CliError::msg(format!("answer {} does not fit its query {:?}", t + 1, step.query)));
            }
            optimizer.observe(&q, step.answer).map_err(|e| CliError::msg(format!("replay, answer {}: {e}", t + 1)))?;
        }
        Ok(Self { body, optimizer, rng, pending: None, last_good: text })
    }

    fn answered(&self) -> usize {
        self.body.history.len()
    }

    fn done(&self) -> bool {
        self.answered() >= self.body.spec.budget
    }

    fn next_query(&mut self) -> Result<StoredQuery, CliError> {
        if self.pending.is_none() {
            let q = self.optimizer.suggest(&mut self.rng).map_err(|e| CliError::msg(format!("algorithm: {e}")))?;
            self.pending = Some(q);
        }
        StoredQuery::of(self.pending.as_ref().expect("set above"))
    }

    /// Records an answer: observe, append, save (backup of the previous file, then the new one).
    fn answer(&mut self, path: &Path, answer: Answer) -> Result<(), CliError> {
        let q = self.pending.take().ok_or_else(|| CliError::msg("no query is pending"))?;
        let stored = StoredQuery::of(&q)?;
        self.optimizer.observe(&q, answer).map_err(|e| CliError::msg(format!("algorithm: {e}")))?;
        self.body.history.push(Step { query: stored, answer });
        let text = session_text(&self.body)?;
        write_atomic(backup_path(path), self.last_good.as_bytes())?;
        write_atomic(path, text.as_bytes())?;
        self.last_good = text;
        Ok(())
    }

    fn recommendation(&self) -> Option<usize> {
        self.optimizer.recommend().ok().and_then(|p| p.index)
    }
}

/// Reads and checks a session spec, loads its candidates and builds its algorithm once: everything
/// `bohf ask new` does before it writes the session file (also used by `bohf check --ask`).
pub fn prepare_session(spec_path: &Path) -> Result<SessionBody, CliError> {
    let spec = read_spec(spec_path)?;
    if spec.name.trim().is_empty() {
        return Err(CliError::msg("name: must not be empty"));
    }
    if spec.budget == 0 {
        return Err(CliError::msg("budget: need at least one query, got 0"));
    }
    let candidates = load_candidates(&spec)?;
    let body = SessionBody { format: FORMAT.into(), version: 1, spec, candidates, history: Vec::new() };
    build(&body).map_err(|e| CliError::msg(format!("`{}`: {e}", spec_path.display())))?;
    Ok(body)
}

/// `bohf ask new SESSION --spec SPEC`.
pub fn new_session(path: &Path, spec_path: &Path, force: bool) -> Result<(), CliError> {
    if path.exists() && !force {
        return Err(CliError::msg(format!(
            "`{}` exists; continue it with `bohf ask {}`, or pass --force to start over",
            path.display(),
            path.display()
        )));
    }
    let body = prepare_session(spec_path)?;
    write_atomic(path, session_text(&body)?.as_bytes())?;
    println!(
        "session `{}`: {} candidates, {} attribute(s), budget {} queries, algorithm {}\nanswer with: bohf ask {}",
        body.spec.name,
        body.candidates.names.len(),
        body.candidates.attributes.len(),
        body.spec.budget,
        body.spec.algorithm.name,
        path.display()
    );
    Ok(())
}

fn load(path: &Path) -> Result<Live, CliError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| CliError::msg(format!("cannot read session file `{}`: {e}", path.display())))?;
    let body = parse_session(&text).map_err(|why| damaged(path, &why))?;
    Live::replay(body, text)
}

/// `bohf ask SESSION [--json]`.
pub fn ask(path: &Path, json: bool) -> Result<(), CliError> {
    let mut live = load(path)?;
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if json {
        ask_json(path, &mut live, &mut input, &mut out)
    } else {
        ask_terminal(path, &mut live, &mut input, &mut out)
    }
}

fn io_err(e: std::io::Error) -> CliError {
    CliError::msg(format!("terminal: {e}"))
}

/// Parses a typed answer; `Ok(None)` means quit.
fn parse_typed(q: StoredQuery, line: &str) -> Result<Option<Answer>, String> {
    let s = line.trim().to_lowercase();
    if matches!(s.as_str(), "q" | "quit" | "exit") {
        return Ok(None);
    }
    match q {
        StoredQuery::Duel { .. } => match s.as_str() {
            "a" | "1" => Ok(Some(Answer::Duel { first_wins: true })),
            "b" | "2" => Ok(Some(Answer::Duel { first_wins: false })),
            _ => Err("type a or b (or q to stop)".into()),
        },
        StoredQuery::Label { .. } => match s.as_str() {
            "y" | "yes" => Ok(Some(Answer::Label { accept: true })),
            "n" | "no" => Ok(Some(Answer::Label { accept: false })),
            _ => Err("type y or n (or q to stop)".into()),
        },
        StoredQuery::Value { .. } => match s.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(Some(Answer::Value(v))),
            _ => Err("type a number (or q to stop)".into()),
        },
    }
}

fn show_query(live: &Live, q: StoredQuery) -> String {
    let c = &live.body.candidates;
    let head = format!("Query {} of {}", live.answered() + 1, live.body.spec.budget);
    match q {
        StoredQuery::Duel { a, b } => {
            let question = live.body.spec.question.clone().unwrap_or_else(|| "Which do you prefer?".into());
            let w0 = c.attributes.iter().map(|s| s.chars().count()).max().unwrap_or(0).max(4);
            let cell = |i: usize, j: Option<usize>| match j {
                None => c.names[i].clone(),
                Some(j) => fmt_num(c.values[i][j]),
            };
            let w1 = std::iter::once(None)
                .chain((0..c.attributes.len()).map(Some))
                .map(|j| cell(a, j).chars().count())
                .max()
                .unwrap_or(0)
                .max(8);
            let mut s = format!("{head}: {question}\n\n");
            s.push_str(&format!("  {:w0$}   {:w1$}   {}\n", "", "A", "B"));
            s.push_str(&format!("  {:w0$}   {:w1$}   {}\n", "", cell(a, None), cell(b, None)));
            for (j, name) in c.attributes.iter().enumerate() {
                s.push_str(&format!("  {name:w0$}   {:w1$}   {}\n", cell(a, Some(j)), cell(b, Some(j))));
            }
            if a == b {
                s.push_str("\n(the same option twice: the algorithm thinks it is the best; either answer is fine)\n");
            }
            s.push_str("\nA or B? [a/b, q to stop] ");
            s
        }
        StoredQuery::Label { x } => format!("{head}: accept {}? [y/n, q to stop] ", c.describe(x)),
        StoredQuery::Value { x } => format!("{head}: your value for {}? [a number, q to stop] ", c.describe(x)),
    }
}

fn ask_terminal(path: &Path, live: &mut Live, input: &mut impl BufRead, out: &mut impl Write) -> Result<(), CliError> {
    writeln!(
        out,
        "Session `{}` ({}): {} of {} queries answered. Answers are saved as you go.\n",
        live.body.spec.name,
        live.body.spec.algorithm.name,
        live.answered(),
        live.body.spec.budget
    )
    .map_err(io_err)?;
    let mut quit = false;
    while !live.done() && !quit {
        let q = live.next_query()?;
        write!(out, "{}", show_query(live, q)).map_err(io_err)?;
        out.flush().map_err(io_err)?;
        loop {
            let mut line = String::new();
            if input.read_line(&mut line).map_err(io_err)? == 0 {
                writeln!(out).map_err(io_err)?;
                quit = true;
                break;
            }
            match parse_typed(q, &line) {
                Ok(None) => {
                    quit = true;
                    break;
                }
                Ok(Some(a)) => {
                    live.answer(path, a)?;
                    writeln!(out, "saved ({} of {})\n", live.answered(), live.body.spec.budget).map_err(io_err)?;
                    break;
                }
                Err(hint) => {
                    write!(out, "`{}` is not an answer: {hint}: ", line.trim()).map_err(io_err)?;
                    out.flush().map_err(io_err)?;
                }
            }
        }
    }
    if live.done() {
        writeln!(out, "The budget of {} queries is spent.", live.body.spec.budget).map_err(io_err)?;
    } else {
        writeln!(out, "Stopped after {} answers; continue with `bohf ask {}`.", live.answered(), path.display())
            .map_err(io_err)?;
    }
    match live.recommendation() {
        Some(i) => writeln!(out, "Current recommendation: {}", live.body.candidates.describe(i)).map_err(io_err)?,
        None => writeln!(out, "No recommendation yet.").map_err(io_err)?,
    }
    Ok(())
}

fn send(out: &mut impl Write, v: serde_json::Value) -> Result<(), CliError> {
    writeln!(out, "{v}").map_err(io_err)?;
    out.flush().map_err(io_err)
}

/// Parses one JSON answer line; `Ok(None)` means quit.
fn parse_json_answer(q: StoredQuery, line: &str) -> Result<Option<Answer>, String> {
    let v: serde_json::Value = serde_json::from_str(line).map_err(|e| format!("not JSON: {e}"))?;
    if v.get("quit").and_then(|x| x.as_bool()) == Some(true) {
        return Ok(None);
    }
    let answer = match q {
        StoredQuery::Duel { .. } => match v.get("choice").and_then(|x| x.as_str()) {
            Some("a" | "A") => Answer::Duel { first_wins: true },
            Some("b" | "B") => Answer::Duel { first_wins: false },
            _ => return Err(r#"a duel needs {"choice": "a"} or {"choice": "b"}"#.into()),
        },
        StoredQuery::Label { .. } => match v.get("accept").and_then(|x| x.as_bool()) {
            Some(accept) => Answer::Label { accept },
            None => return Err(r#"a label needs {"accept": true} or {"accept": false}"#.into()),
        },
        StoredQuery::Value { .. } => match v.get("value").and_then(|x| x.as_f64()) {
            Some(x) if x.is_finite() => Answer::Value(x),
            _ => return Err(r#"a value needs {"value": <finite number>}"#.into()),
        },
    };
    Ok(Some(answer))
}

fn query_json(live: &Live, q: StoredQuery) -> serde_json::Value {
    let c = &live.body.candidates;
    let t = live.answered() + 1;
    let budget = live.body.spec.budget;
    match q {
        StoredQuery::Duel { a, b } => serde_json::json!({
            "type": "query", "t": t, "budget": budget, "kind": "duel", "a": c.json(a), "b": c.json(b)
        }),
        StoredQuery::Label { x } => {
            serde_json::json!({ "type": "query", "t": t, "budget": budget, "kind": "label", "option": c.json(x) })
        }
        StoredQuery::Value { x } => {
            serde_json::json!({ "type": "query", "t": t, "budget": budget, "kind": "value", "option": c.json(x) })
        }
    }
}

fn ask_json(path: &Path, live: &mut Live, input: &mut impl BufRead, out: &mut impl Write) -> Result<(), CliError> {
    send(
        out,
        serde_json::json!({
            "type": "session", "name": live.body.spec.name, "algorithm": live.body.spec.algorithm.name,
            "answered": live.answered(), "budget": live.body.spec.budget,
            "attributes": live.body.candidates.attributes, "candidates": live.body.candidates.names.len()
        }),
    )?;
    let mut reason = "budget";
    'outer: while !live.done() {
        let q = live.next_query()?;
        send(out, query_json(live, q))?;
        loop {
            let mut line = String::new();
            if input.read_line(&mut line).map_err(io_err)? == 0 {
                reason = "end of input";
                break 'outer;
            }
            if line.trim().is_empty() {
                continue;
            }
            match parse_json_answer(q, line.trim()) {
                Ok(None) => {
                    reason = "quit";
                    break 'outer;
                }
                Ok(Some(a)) => {
                    live.answer(path, a)?;
                    send(out, serde_json::json!({ "type": "saved", "answered": live.answered() }))?;
                    break;
                }
                Err(message) => {
                    send(out, serde_json::json!({ "type": "error", "message": message }))?;
                    send(out, query_json(live, q))?;
                }
            }
        }
    }
    let rec = live.recommendation().map(|i| live.body.candidates.json(i)).unwrap_or(serde_json::Value::Null);
    send(
        out,
        serde_json::json!({
            "type": "done", "reason": reason, "answered": live.answered(), "budget": live.body.spec.budget,
            "recommendation": rec
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a64_known_values() {
        // Published FNV-1a 64 test vectors (Fowler/Noll/Vo reference): "" and "a".
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn typed_answers() {
        let d = StoredQuery::Duel { a: 0, b: 1 };
        assert_eq!(parse_typed(d, " A \n"), Ok(Some(Answer::Duel { first_wins: true })));
        assert_eq!(parse_typed(d, "2"), Ok(Some(Answer::Duel { first_wins: false })));
        assert_eq!(parse_typed(d, "q"), Ok(None));
        assert!(parse_typed(d, "maybe").is_err());
        let v = StoredQuery::Value { x: 0 };
        assert_eq!(parse_typed(v, "2.5"), Ok(Some(Answer::Value(2.5))));
        assert!(parse_typed(v, "nan").is_err());
        let l = StoredQuery::Label { x: 0 };
        assert_eq!(parse_typed(l, "yes"), Ok(Some(Answer::Label { accept: true })));
        assert!(parse_json_answer(d, r#"{"choice":"c"}"#).is_err());
        assert_eq!(parse_json_answer(l, r#"{"accept":false}"#), Ok(Some(Answer::Label { accept: false })));
    }
}

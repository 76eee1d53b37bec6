//! The hostile-input fuzz campaign (issue 10): mutated specs and session files through the real
//! `bohf` binary under a memory cap and a timeout. Any panic, abort (e.g. an allocation failure),
//! hang, silent failure, write outside the case's folder, or session file changed by a failing
//! command fails the test, listing each bad case; the inputs of the bad cases are written to
//! `target/fuzz-failures/` for reproduction.
//!
//! Deterministic: case `spec-K` / `session-K` draws its mutation from a generator seeded by
//! (`BOHF_FUZZ_SEED`, kind, K), so `BOHF_FUZZ_ONLY=session-17` re-runs exactly that case. Sizes and
//! limits come from the environment (see docs/fuzzing.md): `BOHF_FUZZ_SPEC_CASES`,
//! `BOHF_FUZZ_SESSION_CASES`, `BOHF_FUZZ_SEED`, `BOHF_FUZZ_MEM_MB`, `BOHF_FUZZ_TIMEOUT_S`,
//! `BOHF_FUZZ_WORKERS`, and `BOHF_FUZZ_REPORT_ONLY=1` (print the counts, do not fail).

#[path = "fuzz/mutate.rs"]
mod mutate;

use mutate::{Json, Mutated};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
mod common;

use std::collections::BTreeMap;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_bohf");
const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

fn env_num<T: std::str::FromStr>(name: &str, default: T) -> T {
    match std::env::var(name) {
        Ok(v) => v.trim().parse().unwrap_or_else(|_| panic!("{name} must be a number, got `{v}`")),
        Err(_) => default,
    }
}

struct Config {
    spec_cases: usize,
    session_cases: usize,
    seed: u64,
    mem_kb: u64,
    timeout: Duration,
    workers: usize,
    only: Option<String>,
    report_only: bool,
}

impl Config {
    fn from_env() -> Self {
        Self {
            spec_cases: env_num("BOHF_FUZZ_SPEC_CASES", 1300),
            session_cases: env_num("BOHF_FUZZ_SESSION_CASES", 700),
            seed: env_num("BOHF_FUZZ_SEED", 10),
            mem_kb: env_num::<u64>("BOHF_FUZZ_MEM_MB", 4096) * 1024,
            timeout: Duration::from_secs_f64(env_num("BOHF_FUZZ_TIMEOUT_S", 10.0)),
            workers: env_num("BOHF_FUZZ_WORKERS", 2).max(1),
            only: std::env::var("BOHF_FUZZ_ONLY").ok(),
            report_only: std::env::var("BOHF_FUZZ_REPORT_ONLY").is_ok_and(|v| v == "1"),
        }
    }
}

/// FNV-1a 64 over the body's compact JSON: the session file's checksum (see crates/session/src/file.rs).
fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

fn session_file(body: Json, checksum: String) -> Vec<u8> {
    let file = Json::Obj(vec![("body".into(), body), ("checksum".into(), Json::Str(checksum))]);
    (serde_json::to_string_pretty(&file).expect("serialisable") + "\n").into_bytes()
}

fn valid_checksum(body: &Json) -> String {
    format!("fnv1a64:{:016x}", fnv1a64(body.compact().as_bytes()))
}

/// One input a case starts from.
#[derive(Clone)]
struct Seed {
    /// The file name the mutated copy gets in the case folder.
    file: &'static str,
    /// Its original name (for reports).
    origin: String,
    bytes: Vec<u8>,
    /// An ask session spec (checked with `--ask` half of the time).
    ask_spec: bool,
}

/// The inputs: committed specs, the ask example, and session files made by running `bohf ask`.
struct Seeds {
    specs: Vec<Seed>,
    sessions: Vec<Seed>,
    /// Files every case folder gets (the example's CSV).
    support: Vec<(&'static str, Vec<u8>)>,
}

const BOX_SPEC: &str = "name = \"box\"\nbudget = 8\nseed = 3\n[candidates.box]\nnames = [\"sugar\", \"milk\"]\n\
                        lower = [0.0, 0.0]\nupper = [10.0, 1.0]\npoints_per_dim = 4\n[algorithm]\nname = \"pf-ts\"\n";
const BOX_RANDOM_SPEC: &str = "name = \"box-random\"\nbudget = 6\nseed = 4\n[candidates.box]\nnames = [\"x\"]\n\
                               lower = [-1.0]\nupper = [1.0]\npoints_per_dim = 9\n[algorithm]\nname = \"random\"\n";

/// An experiment spec with a scalable test function (`dim`, `points_per_dim`, box corners).
const FUNCTION_SPEC: &str = "name = \"function\"\nhorizon = 20\nruns = 2\nseed = 1\n[problem]\nkind = \"function\"\n\
                             function = \"ackley\"\ndim = 2\npoints_per_dim = 6\nlower = [-2.0, -2.0]\nupper = [2.0, 2.0]\n\
                             [[algorithms]]\nname = \"pf-ts\"\n[[algorithms]]\nname = \"mr-lpf\"\n[[algorithms]]\nname = \"random\"\n";
const BOX_MRLPF_SPEC: &str = "name = \"box-mrlpf\"\nbudget = 20\nseed = 5\n[candidates.box]\nnames = [\"a\", \"b\"]\n\
                              lower = [0.0, 0.0]\nupper = [1.0, 1.0]\npoints_per_dim = 6\n[algorithm]\nname = \"mr-lpf\"\n";

fn bohf_in(dir: &Path, args: &[&str], stdin: &[u8]) -> std::process::Output {
    let out = common::run_bohf(dir, args, stdin);
    assert!(out.status.success(), "bohf {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    out
}

/// Answers `n` queries of a session with `--json` (one line that fits any kind of query).
fn answer(dir: &Path, session: &str, n: usize) {
    let line =
        "{\"choice\": \"a\", \"accept\": true, \"value\": 0.5}\n{\"choice\": \"b\", \"accept\": false, \"value\": 2}\n";
    let input: String = line.lines().cycle().take(n).map(|l| format!("{l}\n")).collect();
    let out = bohf_in(dir, &["ask", session, "--json"], input.as_bytes());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(&format!("\"answered\":{n}")), "{session}: {text}");
}

fn make_seeds(dir: &Path) -> Seeds {
    std::fs::create_dir_all(dir).unwrap();
    let root = Path::new(ROOT);
    let mut specs = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(root.join("specs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    entries.sort();
    for p in entries {
        let mut text = std::fs::read_to_string(&p).unwrap();
        // The catalyst data path is relative to the spec file: made absolute so the copy finds it.
        let rewritten: Vec<String> = text
            .lines()
            .map(|l| match l.strip_prefix("path = \"").and_then(|r| r.strip_suffix('"')) {
                Some(rel) => {
                    let abs = root.join("specs").join(rel);
                    format!("path = {:?}", std::fs::canonicalize(&abs).unwrap_or(abs))
                }
                None => l.to_string(),
            })
            .collect();
        text = rewritten.join("\n") + "\n";
        specs.push(Seed {
            file: "spec.toml",
            origin: p.strip_prefix(root).unwrap_or(&p).display().to_string(),
            bytes: text.into_bytes(),
            ask_spec: false,
        });
    }
    specs.push(Seed {
        file: "spec.toml",
        origin: "(function spec)".into(),
        bytes: FUNCTION_SPEC.as_bytes().to_vec(),
        ask_spec: false,
    });
    // A box problem (pop-bo's box mode), from the documented example.
    specs.push(Seed {
        file: "spec.toml",
        origin: "docs/examples/box-branin.toml".into(),
        bytes: std::fs::read(root.join("docs/examples/box-branin.toml")).unwrap(),
        ask_spec: false,
    });
    let examples = root.join("docs/examples/ask");
    let coffee = std::fs::read(examples.join("coffee.toml")).unwrap();
    let beans = std::fs::read(examples.join("beans.csv")).unwrap();
    std::fs::write(dir.join("coffee.toml"), &coffee).unwrap();
    std::fs::write(dir.join("beans.csv"), &beans).unwrap();
    std::fs::write(dir.join("box.toml"), BOX_SPEC).unwrap();
    std::fs::write(dir.join("box-random.toml"), BOX_RANDOM_SPEC).unwrap();
    std::fs::write(dir.join("box-mrlpf.toml"), BOX_MRLPF_SPEC).unwrap();
    for (origin, bytes) in [
        ("docs/examples/ask/coffee.toml", coffee.clone()),
        ("(box spec)", BOX_SPEC.as_bytes().to_vec()),
        ("(box spec, random)", BOX_RANDOM_SPEC.as_bytes().to_vec()),
        ("(box spec, mr-lpf)", BOX_MRLPF_SPEC.as_bytes().to_vec()),
    ] {
        specs.push(Seed { file: "spec.toml", origin: origin.into(), bytes, ask_spec: true });
    }

    let mut sessions = Vec::new();
    for (spec, name, stops) in [
        ("coffee.toml", "coffee", &[0usize, 3, 7][..]),
        ("box.toml", "box", &[0, 4]),
        ("box-random.toml", "rnd", &[2]),
        ("box-mrlpf.toml", "mrlpf", &[5]),
    ] {
        let file = format!("{name}.json");
        bohf_in(dir, &["ask", "new", &file, "--spec", spec], b"");
        let mut answered = 0;
        for &k in stops {
            if k > answered {
                answer(dir, &file, k - answered);
                answered = k;
            }
            sessions.push(Seed {
                file: "session.json",
                origin: format!("{name} with {k} answers"),
                bytes: std::fs::read(dir.join(&file)).unwrap(),
                ask_spec: false,
            });
        }
    }
    Seeds { specs, sessions, support: vec![("beans.csv", beans)] }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Class {
    Ok,
    Panic,
    Abort,
    Hang,
    /// Failed (exit 1/2) without a message.
    Silent,
    /// An exit status other than 0, 1, 2, 101, 134.
    Odd,
    /// Wrote outside its folder.
    Escape,
    /// A failing command changed the session file.
    Modified,
}

struct Case {
    id: String,
    seed: Seed,
    mutated: Mutated,
    args: Vec<String>,
    /// `None`: stdin is /dev/null.
    stdin: Option<Vec<u8>>,
}

struct Finding {
    id: String,
    class: Class,
    what: String,
    origin: String,
    args: Vec<String>,
    status: String,
    stderr: String,
    /// Exit 0 (the input was accepted).
    valid: bool,
}

fn rng_for(seed: u64, kind: u64, k: usize) -> StdRng {
    StdRng::seed_from_u64(
        seed ^ kind.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (k as u64).wrapping_mul(0xbf58_476d_1ce4_e5b9),
    )
}

fn spec_case(seeds: &Seeds, seed: u64, k: usize) -> Case {
    let mut rng = rng_for(seed, 1, k);
    let s = seeds.specs[rng.random_range(0..seeds.specs.len())].clone();
    let mutated = mutate::mutate_toml(&mut rng, &s.bytes);
    let mut args = vec!["check".to_string()];
    if s.ask_spec && rng.random_bool(0.5) {
        args.push("--ask".into());
    }
    args.push(s.file.into());
    Case { id: format!("spec-{k}"), seed: s, mutated, args, stdin: None }
}

fn session_case(seeds: &Seeds, seed: u64, k: usize) -> Case {
    let mut rng = rng_for(seed, 2, k);
    let s = seeds.sessions[rng.random_range(0..seeds.sessions.len())].clone();
    let fix_checksum = rng.random_bool(0.5);
    let parsed: Option<Json> = serde_json::from_slice(&s.bytes).ok();
    let mut tree = false;
    let mut mutated = match parsed {
        Some(Json::Obj(mut kv)) if rng.random_bool(0.65) && kv.first().is_some_and(|(k, _)| k == "body") => {
            let old_sum = match kv.get(1) {
                Some((_, Json::Str(c))) => c.clone(),
                _ => String::new(),
            };
            let mut body = kv.swap_remove(0).1;
            let mut what = mutate::mutate_session_body(&mut rng, &mut body);
            let sum = if fix_checksum { valid_checksum(&body) } else { old_sum };
            tree = true;
            if fix_checksum {
                what.push_str(", checksum re-computed");
            }
            Mutated { bytes: session_file(body, sum), what }
        }
        _ => mutate::mutate_bytes(&mut rng, &s.bytes),
    };
    if fix_checksum && !tree {
        // A text mutation that still parses: give it a valid checksum too.
        if let Ok(Json::Obj(mut kv)) = serde_json::from_slice::<Json>(&mutated.bytes)
            && kv.len() == 2
            && kv[0].0 == "body"
        {
            let body = kv.swap_remove(0).1;
            let sum = valid_checksum(&body);
            mutated.bytes = session_file(body, sum);
            mutated.what.push_str(", checksum re-computed");
        }
    }
    let (args, stdin) = if rng.random_bool(0.5) {
        (vec!["ask".to_string(), s.file.into(), "--json".into()], None)
    } else {
        let mut junk: Vec<u8> = (0..rng.random_range(0..12)).map(|_| rng.random::<u8>()).collect();
        if rng.random_bool(0.5) {
            junk.extend_from_slice(mutate_answer(&mut rng));
        }
        (vec!["ask".to_string(), s.file.into()], Some(junk))
    };
    Case { id: format!("session-{k}"), seed: s, mutated, args, stdin }
}

fn mutate_answer(rng: &mut StdRng) -> &'static [u8] {
    [&b"a\n"[..], b"b\ny\n", b"\xff\n", b"q\n", b"1e999\n", b"\n\n\n"][rng.random_range(0..6)]
}

fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|r| r.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

/// Paths outside the temporary tree that a path-like name could reach.
const ABSOLUTE_PROBES: &[&str] = &["/abs", "/tmp/bohf-fuzz-abs", "/x"];

fn run_case(cfg: &Config, seeds: &Seeds, case: &Case, worker: &Path, root: &Path, root_listing: &[String]) -> Finding {
    let dir = worker.join("case");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (name, bytes) in &seeds.support {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
    let input = dir.join(case.seed.file);
    std::fs::write(&input, &case.mutated.bytes).unwrap();
    let (out_path, err_path, in_path) = (worker.join("stdout"), worker.join("stderr"), worker.join("stdin"));
    let stdin = match &case.stdin {
        Some(bytes) => {
            std::fs::write(&in_path, bytes).unwrap();
            Stdio::from(std::fs::File::open(&in_path).unwrap())
        }
        None => Stdio::null(),
    };
    let script = format!("ulimit -v {} && exec \"$0\" \"$@\"", cfg.mem_kb);
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(BIN)
        .args(&case.args)
        .current_dir(&dir)
        // bohf's own memory limit at 1/16 of the address-space cap: a mutated size that fits (a
        // 20000-candidate Gram, 3.2 GB, took 44 s to build in a debug `bohf check`) is refused by
        // validation with its error, the path a hostile size takes, instead of timing out as a hang.
        .env("BOHF_MEMORY_LIMIT", format!("{}K", cfg.mem_kb / 16))
        .stdin(stdin)
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .expect("sh runs");
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break Some(s);
        }
        if start.elapsed() > cfg.timeout {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let stdout = String::from_utf8_lossy(&std::fs::read(&out_path).unwrap_or_default()).into_owned();
    let stderr = String::from_utf8_lossy(&std::fs::read(&err_path).unwrap_or_default()).into_owned();
    let (class, status_text) = match status {
        // A valid session that legitimately takes long is not a hang if it shows progress.
        None if case.mutated.what.contains(mutate::GROWN)
            && case.mutated.what.contains("checksum re-computed")
            && !stderr.trim().is_empty() =>
        {
            (Class::Ok, format!("valid and slow, showed progress, killed after {:.1} s", cfg.timeout.as_secs_f64()))
        }
        None => (Class::Hang, format!("killed after {:.1} s", cfg.timeout.as_secs_f64())),
        Some(s) => {
            let text = match (s.code(), s.signal()) {
                (Some(c), _) => format!("exit {c}"),
                (None, Some(sig)) => format!("signal {sig}"),
                _ => "unknown".into(),
            };
            let class = match (s.code(), s.signal()) {
                _ if stderr.contains("panicked") => Class::Panic,
                (Some(101), _) => Class::Panic,
                (Some(134), _) | (None, Some(_)) => Class::Abort,
                (Some(0), _) => Class::Ok,
                (Some(1 | 2), _) if !stderr.trim().is_empty() || stdout.contains("\"type\":\"error\"") => Class::Ok,
                (Some(1 | 2), _) => Class::Silent,
                _ => Class::Odd,
            };
            (class, text)
        }
    };
    let mut class = class;
    let mut extra = String::new();
    // Writes outside the case folder: the worker folder, the campaign root, absolute probes.
    let wl = listing(worker);
    let unexpected: Vec<&String> =
        wl.iter().filter(|n| !["case", "stdin", "stdout", "stderr"].contains(&n.as_str())).collect();
    let rl = listing(root);
    let new_in_root: Vec<&String> = rl.iter().filter(|n| !root_listing.contains(n)).collect();
    let probes: Vec<&&str> = ABSOLUTE_PROBES.iter().filter(|p| Path::new(p).exists()).collect();
    if class == Class::Ok && (!unexpected.is_empty() || !new_in_root.is_empty() || !probes.is_empty()) {
        class = Class::Escape;
        extra = format!(" [wrote {unexpected:?} {new_in_root:?} {probes:?}]");
    }
    for n in unexpected {
        let _ = std::fs::remove_dir_all(worker.join(n)).or_else(|_| std::fs::remove_file(worker.join(n)));
    }
    // A failing command must leave the session file as it was.
    if class == Class::Ok
        && case.args[0] == "ask"
        && status.is_some_and(|s| !s.success())
        && std::fs::read(&input).ok().as_deref() != Some(&case.mutated.bytes[..])
    {
        class = Class::Modified;
    }
    Finding {
        id: case.id.clone(),
        class,
        what: case.mutated.what.clone() + &extra,
        origin: case.seed.origin.clone(),
        args: case.args.clone(),
        status: status_text,
        stderr: stderr
            .lines()
            .take_while(|l| !l.starts_with("stack backtrace:"))
            .take(6)
            .collect::<Vec<_>>()
            .join("\n"),
        valid: status.is_some_and(|s| s.success()),
    }
}

/// A short key for grouping findings: the panic location and message, or the error's first line.
fn category(f: &Finding) -> String {
    let lines: Vec<&str> = f.stderr.lines().collect();
    if let Some(i) = lines.iter().position(|l| l.contains("panicked at")) {
        let loc = lines[i].split("panicked at").nth(1).unwrap_or("").trim().trim_end_matches(':');
        let msg = lines.get(i + 1).copied().unwrap_or("");
        let msg: String = msg.chars().take(80).collect();
        return format!("{loc} {msg}");
    }
    let first: String = lines.first().copied().unwrap_or("").chars().take(100).collect();
    format!("{} ({})", first, f.args.join(" "))
}

#[test]
fn hostile_inputs_never_panic_abort_hang_or_escape() {
    let cfg = Config::from_env();
    let started = Instant::now();
    let root = std::env::temp_dir().join(format!("bohf-fuzz-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let seeds = make_seeds(&root.join("seeds"));
    if cfg.only.is_none() {
        let _ = std::fs::remove_dir_all(failures_dir());
    }
    let mut cases: Vec<(bool, usize)> =
        (0..cfg.spec_cases).map(|k| (true, k)).chain((0..cfg.session_cases).map(|k| (false, k))).collect();
    if let Some(only) = &cfg.only {
        cases.retain(|&(spec, k)| *only == format!("{}-{k}", if spec { "spec" } else { "session" }));
        if cases.is_empty() {
            // A case beyond the default counts.
            let (kind, k) = only.split_once('-').expect("BOHF_FUZZ_ONLY=spec-K or session-K");
            cases.push((kind == "spec", k.parse().expect("a case number")));
        }
    }
    let workers: Vec<PathBuf> = (0..cfg.workers).map(|w| root.join(format!("w{w}"))).collect();
    for w in &workers {
        std::fs::create_dir_all(w).unwrap();
    }
    let root_listing = listing(&root);
    let next = AtomicUsize::new(0);
    let findings = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for w in &workers {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(&(spec, k)) = cases.get(i) else { break };
                    let case = if spec { spec_case(&seeds, cfg.seed, k) } else { session_case(&seeds, cfg.seed, k) };
                    let f = run_case(&cfg, &seeds, &case, w, &root, &root_listing);
                    if f.class != Class::Ok {
                        save_failure(&case, &f);
                    }
                    findings.lock().unwrap().push(f);
                }
            });
        }
    });
    let findings = findings.into_inner().unwrap();
    let _ = std::fs::remove_dir_all(&root);

    let mut counts: BTreeMap<(Class, bool), usize> = BTreeMap::new();
    for f in &findings {
        *counts.entry((f.class, f.id.starts_with("spec"))).or_default() += 1;
    }
    let mut report = format!(
        "fuzz campaign: {} cases ({} spec, {} session), seed {}, memory cap {} MB, timeout {:.0} s, {} workers, {:.1} s\n",
        findings.len(),
        findings.iter().filter(|f| f.id.starts_with("spec")).count(),
        findings.iter().filter(|f| f.id.starts_with("session")).count(),
        cfg.seed,
        cfg.mem_kb / 1024,
        cfg.timeout.as_secs_f64(),
        cfg.workers,
        started.elapsed().as_secs_f64()
    );
    for spec in [true, false] {
        let n = findings.iter().filter(|f| f.valid && f.id.starts_with("spec") == spec).count();
        report.push_str(&format!("  (exit 0: {n} {} cases)\n", if spec { "spec" } else { "session" }));
    }
    for ((class, spec), n) in &counts {
        report.push_str(&format!("  {:<9} {:<8} {n}\n", format!("{class:?}"), if *spec { "spec" } else { "session" }));
    }
    let mut bad: Vec<&Finding> = findings.iter().filter(|f| f.class != Class::Ok).collect();
    bad.sort_by_key(|f| {
        (f.class, f.id.starts_with("session"), f.id.split('-').nth(1).and_then(|n| n.parse::<usize>().ok()))
    });
    let mut groups: BTreeMap<(Class, String), Vec<&str>> = BTreeMap::new();
    for f in &bad {
        groups.entry((f.class, category(f))).or_default().push(&f.id);
    }
    let mut errors: BTreeMap<String, usize> = BTreeMap::new();
    for f in findings.iter().filter(|f| f.class == Class::Ok && !f.valid) {
        let first = f.stderr.lines().find(|l| !l.trim().is_empty()).unwrap_or("(a JSON error)");
        let key: String = first.chars().filter(|c| !c.is_ascii_digit()).take(90).collect();
        *errors.entry(key).or_default() += 1;
    }
    let mut errors: Vec<(String, usize)> = errors.into_iter().collect();
    errors.sort_by_key(|e| std::cmp::Reverse(e.1));
    report.push_str("\nmost frequent clear errors (digits removed):\n");
    for (e, n) in errors.iter().take(25) {
        report.push_str(&format!("  {n:>5}  {e}\n"));
    }
    if !groups.is_empty() {
        report.push_str("\nfindings by kind:\n");
        for ((class, key), ids) in &groups {
            let shown: Vec<&str> = ids.iter().take(5).copied().collect();
            report.push_str(&format!("  {class:?} ×{}: {key}\n      e.g. {}\n", ids.len(), shown.join(", ")));
        }
        report.push_str("\nbad cases (inputs in target/fuzz-failures/):\n");
        for f in bad.iter().take(60) {
            report.push_str(&format!(
                "- {} {:?} [{}] from {}: {}\n  bohf {}\n  {}\n",
                f.id,
                f.class,
                f.status,
                f.origin,
                f.what,
                f.args.join(" "),
                f.stderr.replace('\n', "\n  ")
            ));
        }
        if bad.len() > 60 {
            report.push_str(&format!("… and {} more\n", bad.len() - 60));
        }
    }
    println!("{report}");
    if !cfg.report_only {
        assert!(bad.is_empty(), "{} bad case(s) of {}\n{report}", bad.len(), findings.len());
    }
}

fn failures_dir() -> PathBuf {
    Path::new(ROOT).join("target").join("fuzz-failures")
}

fn save_failure(case: &Case, f: &Finding) {
    let dir = failures_dir().join(&case.id);
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(dir.join(case.seed.file), &case.mutated.bytes);
    if let Some(stdin) = &case.stdin {
        let _ = std::fs::write(dir.join("stdin"), stdin);
    }
    let info = format!(
        "case {}\nclass {:?}\nfrom {}\nmutation {}\ncommand bohf {}\nstatus {}\nreproduce: BOHF_FUZZ_ONLY={} cargo test -p bohf-cli --test fuzz -- --nocapture\n\n{}\n",
        f.id,
        f.class,
        f.origin,
        f.what,
        f.args.join(" "),
        f.status,
        f.id,
        f.stderr
    );
    let _ = std::fs::write(dir.join("info.txt"), info);
}

/// The harness's re-computed checksum is the one `bohf ask` expects: a renamed session with a
/// re-computed checksum loads (so checksum-fixed mutations reach the code behind the check), and the
/// same change with the old checksum is reported as damaged.
#[test]
fn recomputed_checksums_pass_the_session_check() {
    let root = std::env::temp_dir().join(format!("bohf-fuzz-sum-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let seeds = make_seeds(&root.join("seeds"));
    let seed = seeds.sessions.iter().find(|s| s.origin == "coffee with 3 answers").expect("made by make_seeds");
    let Ok(Json::Obj(mut kv)) = serde_json::from_slice::<Json>(&seed.bytes) else { panic!("a session is an object") };
    let Json::Str(old_sum) = kv[1].1.clone() else { panic!("the checksum is a string") };
    let mut body = kv.swap_remove(0).1;
    *body.get_mut("spec").and_then(|s| s.get_mut("name")).expect("spec.name") = Json::Str("renamed".into());
    let dir = root.join("case");
    std::fs::create_dir_all(&dir).unwrap();
    let run = |bytes: Vec<u8>| {
        std::fs::write(dir.join("s.json"), bytes).unwrap();
        Command::new(BIN).args(["ask", "s.json", "--json"]).current_dir(&dir).stdin(Stdio::null()).output().unwrap()
    };
    let good = run(session_file(body.clone(), valid_checksum(&body)));
    let stdout = String::from_utf8_lossy(&good.stdout);
    assert!(good.status.success(), "{}", String::from_utf8_lossy(&good.stderr));
    assert!(stdout.contains("\"name\":\"renamed\"") && stdout.contains("\"answered\":3"), "{stdout}");
    let bad = run(session_file(body, old_sum));
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("checksum mismatch"));
    let _ = std::fs::remove_dir_all(&root);
}

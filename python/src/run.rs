//! `bohf.run`: an experiment run into a results folder by the code of `bohf run`
//! (`bohf_experiments::folder::run_experiment`: the same files, resume, shards and locks).

use crate::convert::table;
use crate::errors::{SpecError, experiment_err};
use bohf_core::Answer;
use bohf_experiments::folder::{self, FolderProgress, Outcome, RunOptions};
use bohf_experiments::{Experiment, ExperimentSpec, PointRecord, RunRecord};
use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Collects the folder run's notes (shown as Python warnings afterwards) and stops it once the
/// main thread has seen Ctrl-C.
#[derive(Default)]
struct Progress {
    stop: AtomicBool,
    notes: Mutex<Vec<String>>,
}

impl FolderProgress for Progress {
    fn note(&self, message: &str) {
        if let Ok(mut n) = self.notes.lock() {
            n.push(message.to_string());
        }
    }
    fn cancelled(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }
}

/// The spec from a path, TOML text or a dict; a relative data path is resolved like `bohf run`'s.
fn spec_of(spec: &Bound<'_, PyAny>) -> PyResult<(ExperimentSpec, String)> {
    if let Ok(d) = spec.cast::<PyDict>() {
        let text = toml::to_string(&table("", d)?).map_err(|e| SpecError::new_err(format!("spec: {e}")))?;
        return Ok((ExperimentSpec::from_toml_str(&text).map_err(experiment_err)?, "the spec dict".into()));
    }
    let is_path = !spec.is_instance_of::<PyString>();
    let text: String = if is_path {
        spec.call_method0("__fspath__")
            .and_then(|p| p.extract())
            .map_err(|_| SpecError::new_err("spec: need a path, TOML text or a dict"))?
    } else {
        spec.extract()?
    };
    // A str is TOML text if it holds a line break or an `=`, else a path.
    if !is_path && (text.contains('\n') || text.contains('=')) {
        return Ok((ExperimentSpec::from_toml_str(&text).map_err(experiment_err)?, "the spec text".into()));
    }
    let path = PathBuf::from(&text);
    Ok((ExperimentSpec::from_file(&path).map_err(experiment_err)?, format!("`{}`", path.display())))
}

/// One step of a run as a record with the columns of `steps.csv` (plus `elapsed_s`): a point is a
/// candidate index (int) or a list of coordinates, an answer 1/0 for a duel or a label.
fn records<'py>(py: Python<'py>, runs: &[RunRecord]) -> PyResult<Bound<'py, PyList>> {
    let point = |p: &PointRecord| -> PyResult<Bound<'py, PyAny>> {
        Ok(match p {
            PointRecord::Candidate(i) => i.into_pyobject(py)?.into_any(),
            PointRecord::Coords(c) => c.clone().into_pyobject(py)?.into_any(),
        })
    };
    let out = PyList::empty(py);
    for r in runs {
        for s in &r.steps {
            let d = PyDict::new(py);
            d.set_item("algorithm", &r.label)?;
            d.set_item("run", r.id.run)?;
            d.set_item("t", s.t)?;
            d.set_item("query", s.query.as_str())?;
            d.set_item("first", point(&s.first)?)?;
            d.set_item("second", s.second.as_ref().map(point).transpose()?)?;
            match s.answer {
                Answer::Duel { first_wins: b } | Answer::Label { accept: b } => d.set_item("answer", u8::from(b))?,
                Answer::Value(v) => d.set_item("answer", v)?,
                Answer::Choice { index } => d.set_item("answer", index)?,
            }
            if !s.options.is_empty() {
                let options = s.options.iter().map(point).collect::<PyResult<Vec<_>>>()?;
                d.set_item("options", options)?;
            }
            d.set_item("regret", s.regret)?;
            d.set_item("cumulative_regret", s.cumulative_regret)?;
            d.set_item("recommendation", point(&s.recommendation)?)?;
            d.set_item("simple_regret", s.simple_regret)?;
            // The utility gaps (bohf_experiments::metrics), in the problem's units; NaN if not recorded.
            let g = &s.utility_gap;
            d.set_item("utility_gap", g.instantaneous)?;
            d.set_item("cumulative_utility_gap", g.cumulative)?;
            d.set_item("simple_utility_gap", g.simple)?;
            d.set_item("elapsed_s", s.elapsed_s)?;
            out.append(d)?;
        }
    }
    Ok(out)
}

/// Runs an experiment into `out` (default `results/NAME`) exactly as `bohf run` does and returns
/// its steps as records (a list of dicts, one per step of every run, for `pandas.DataFrame`). A
/// shard (`"K/N"` or `(K, N)`) returns the records of the whole experiment only when it finishes
/// it, else an empty list. The GIL is released while it runs; Ctrl-C stops it after the runs in
/// flight (they are saved; `resume=True` continues) and raises KeyboardInterrupt. A run of an
/// algorithm that saves its state (COBOL) saves a checkpoint at most every `checkpoint_every`
/// seconds (0: never), from which `resume=True` continues it.
#[pyfunction]
#[pyo3(
    signature = (spec, out=None, shard=None, threads=None, resume=false, checkpoint_every=300.0),
    text_signature = "(spec, out=None, shard=None, threads=0, resume=False, checkpoint_every=300.0)"
)]
pub fn run<'py>(
    py: Python<'py>,
    spec: &Bound<'py, PyAny>,
    out: Option<PathBuf>,
    shard: Option<&Bound<'py, PyAny>>,
    threads: Option<&Bound<'py, PyAny>>,
    resume: bool,
    checkpoint_every: f64,
) -> PyResult<Bound<'py, PyList>> {
    // `threads=None` (the signature's default) is 0: one thread per core.
    let threads =
        threads.map(|t| crate::errors::whole("threads", t, usize::MAX as u64)).transpose()?.unwrap_or(0) as usize;
    if !(checkpoint_every.is_finite() && checkpoint_every >= 0.0) {
        return Err(SpecError::new_err(format!(
            "checkpoint_every: need a finite number of seconds >= 0, got {checkpoint_every}"
        )));
    }
    // 0: never; else a duration (1e300 s is more than a `Duration` holds: refused, not a panic).
    let checkpoint_every = match checkpoint_every {
        0.0 => None,
        s => Some(Duration::try_from_secs_f64(s).map_err(|_| {
            SpecError::new_err(format!(
                "checkpoint_every: {s} seconds is more than can be waited (at most about {:e})",
                Duration::MAX.as_secs_f64()
            ))
        })?),
    };
    let (spec, source) = spec_of(spec)?;
    let spec = folder::stored_spec(spec);
    let experiment =
        Experiment::new(spec, &bohf_registry::builtin()).map_err(|e| SpecError::new_err(format!("{source}: {e}")))?;
    let shard = match shard {
        None => None,
        Some(s) if s.is_instance_of::<PyString>() => {
            Some(folder::parse_shard(&s.extract::<String>()?).map_err(|e| SpecError::new_err(format!("shard: {e}")))?)
        }
        Some(s) => {
            let (k, n): (usize, usize) =
                s.extract().map_err(|_| SpecError::new_err("shard: need \"K/N\" or a tuple (K, N)"))?;
            Some(folder::parse_shard(&format!("{k}/{n}")).map_err(|e| SpecError::new_err(format!("shard: {e}")))?)
        }
    };
    let opts = RunOptions {
        out: out.unwrap_or_else(|| PathBuf::from("results").join(&experiment.spec().name)),
        threads,
        shard,
        resume,
        checkpoint_every,
    };
    let progress = Progress::default();
    let mut interrupt = None;
    let outcome = std::thread::scope(|scope| {
        let worker = scope.spawn(|| folder::run_experiment(&experiment, &opts, &progress));
        // The main thread waits without the GIL and checks for Ctrl-C every 50 ms (signal handlers
        // run only on Python's main thread, so the pool's threads cannot see it).
        while !worker.is_finished() {
            py.detach(|| std::thread::sleep(Duration::from_millis(50)));
            if interrupt.is_none()
                && let Err(e) = py.check_signals()
            {
                progress.stop.store(true, Ordering::SeqCst);
                interrupt = Some(e);
            }
        }
        worker.join().unwrap_or_else(|_| {
            Err(bohf_experiments::ExperimentError::Folder(
                "the run stopped on an internal error (a panic); finished runs are saved, resume=True continues".into(),
            ))
        })
    });
    let warnings = py.import("warnings")?;
    for note in progress.notes.lock().map(|n| n.clone()).unwrap_or_default() {
        warnings.call_method1("warn", (note,))?;
    }
    if let Some(e) = interrupt {
        let saved = match &outcome {
            Err(e) => e.to_string(),
            Ok(_) => "every run had finished".into(),
        };
        if e.is_instance_of::<PyKeyboardInterrupt>(py) {
            return Err(PyKeyboardInterrupt::new_err(saved));
        }
        return Err(e);
    }
    match outcome.map_err(experiment_err)? {
        Outcome::Complete(results) => records(py, results.runs()),
        Outcome::ShardDone { .. } => Ok(PyList::empty(py)),
    }
}

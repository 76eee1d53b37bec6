//! Warnings about valid but probably meaningless settings, which `bohf check` prints (they do not
//! stop a run):
//!
//! * **A kernel lengthscale far below the candidate spacing.** For each algorithm, every
//!   `lengthscale` (or `lengthscales` entry) of its parameters, its defaults included, is compared,
//!   in the coordinates the algorithm sees (`problem.inputs`, [`crate::inputs`]; the unit cube for
//!   an algorithm that maps the points there itself, [`crate::AlgorithmEntry::own_unit_cube`]), with the spacing
//!   of the candidates in each coordinate (the median gap between consecutive distinct values: a
//!   grid's step). Below half the spacing, the Matérn-5/2 correlation of two neighbouring candidates
//!   is k(2ℓ) = (1 + 2√5 + 20/3)·e^{−2√5} ≈ 0.14 or less: the model learns almost nothing about a
//!   candidate from its neighbours, and the algorithm is close to random search. An algorithm whose
//!   parameters contain a `hyperparameters` table fits its lengthscales (type-II maximum likelihood)
//!   and is not judged. A box problem has no spacing and is not judged.
//! * **A utility range far from the link's scale** (stochastic duels only). With the utility on the
//!   respondent's scale spanning R = max u − min u ([`crate::PreparedProblem::utility_range`]), the
//!   best candidate beats the worst with probability μ(R). Above [`MAX_UTILITY_RANGE`] (μ(20) =
//!   1 − 2·10⁻⁹ for the logistic link) the answers are practically deterministic and the link's
//!   noise model says nothing; below [`MIN_UTILITY_RANGE`] (μ(0.5) = 0.62) even the best and the
//!   worst are close to a coin flip.

use crate::inputs::{InputMap, Inputs};
use crate::runner::Experiment;
use crate::spec::ResponseModel;
use bohf_core::{Domain, FiniteDomain};

/// Above this range of the utility on the respondent's scale, stochastic answers are practically
/// deterministic (see the module documentation).
pub const MAX_UTILITY_RANGE: f64 = 20.0;

/// Below this range, every stochastic answer is close to a coin flip.
pub const MIN_UTILITY_RANGE: f64 = 0.5;

/// A warning: the spec field it is about and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Warning {
    /// The field's path in the spec (e.g. `algorithms[0].params.inference.kernel.lengthscale`).
    pub field: String,
    /// What is probably wrong, and what to do.
    pub message: String,
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{}`: {}", self.field, self.message)
    }
}

/// The warnings of an experiment (built, so the problem is prepared), in spec order.
pub fn warnings(experiment: &Experiment) -> crate::Result<Vec<Warning>> {
    let spec = experiment.spec();
    let problem = experiment.problem();
    let mut out = Vec::new();
    if let (Domain::Finite(seen), Domain::Finite(own)) = (problem.search_domain(), problem.domain()) {
        let as_given = spacing(seen);
        // What an algorithm that maps the points itself sees: the candidates' bounding box.
        let on_cube = match InputMap::new(&Domain::Finite(own.clone()), Inputs::UnitCube)?.search_domain() {
            Domain::Finite(cube) => spacing(cube),
            Domain::Box(_) => as_given.clone(),
        };
        let kind = bohf_core::DomainKind::Finite;
        for (i, a) in spec.algorithms.iter().enumerate() {
            let Some(entry) = experiment.registry().get(&a.name) else { continue };
            let (spacing, inputs) = if entry.own_unit_cube() {
                (&on_cube, "the unit cube, which it maps the candidates to itself")
            } else {
                (
                    &as_given,
                    match spec.problem.inputs() {
                        Inputs::UnitCube => "`problem.inputs = \"unit-cube\"`",
                        Inputs::Raw => "`problem.inputs = \"raw\"`",
                    },
                )
            };
            let mut params = entry.default_params_for(kind).unwrap_or_default();
            merge(&mut params, &a.params);
            if has_key(&params, "hyperparameters") {
                continue;
            }
            for (path, values) in lengthscales(&params, &format!("algorithms[{i}].params")) {
                let set = if lookup(&a.params, &path, &format!("algorithms[{i}].params")) { "" } else { " (default)" };
                // An isotropic lengthscale against every coordinate, ARD ones coordinate by coordinate.
                let worst = spacing
                    .iter()
                    .enumerate()
                    .filter_map(|(j, &h)| {
                        let l = if values.len() == 1 { values[0] } else { *values.get(j)? };
                        (h > 0.0 && 2.0 * l < h).then_some((j, l, h))
                    })
                    .max_by(|a, b| (a.2 / a.1).total_cmp(&(b.2 / b.1)));
                if let Some((j, l, h)) = worst {
                    out.push(Warning {
                        field: path,
                        message: format!(
                            "lengthscale {l}{set} is below half the candidates' spacing {h:.3} in coordinate {j} (in \
                             the coordinates the algorithm sees: {inputs}): neighbouring candidates are almost \
                             uncorrelated and the algorithm is close to random search; use `problem.inputs = \
                             \"unit-cube\"` or a lengthscale of about the spacing or more"
                        ),
                    });
                }
            }
        }
    }
    if spec.respondent.model == ResponseModel::Stochastic {
        let (lo, hi) = problem.utility_range()?;
        let range = hi - lo;
        let link = spec.respondent.link;
        let why = if range > MAX_UTILITY_RANGE {
            Some(format!(
                "the worst candidate beats the best with probability {:.1e}: the answers are practically \
                 deterministic; use `problem.scaling = \"standardise\"` or a smaller `respondent.scale`",
                link.mu(-range)
            ))
        } else if range < MIN_UTILITY_RANGE {
            Some(format!(
                "even the best candidate beats the worst only with probability {:.2}: almost every answer is a \
                 coin flip; use `problem.scaling = \"standardise\"` or a larger `respondent.scale`",
                link.mu(range)
            ))
        } else {
            None
        };
        if let Some(why) = why {
            out.push(Warning {
                field: "problem.scaling".into(),
                message: format!(
                    "the utility on the respondent's scale spans {range:.3} (from {lo:.4} to {hi:.4}) where the \
                     link's scale is 1; {why}"
                ),
            });
        }
    }
    Ok(out)
}

/// Per coordinate, the median gap between consecutive distinct values of the candidates (a grid's
/// step; 0 for a coordinate with one value).
pub fn spacing(domain: &FiniteDomain) -> Vec<f64> {
    domain
        .points()
        .column_iter()
        .map(|col| {
            let mut v: Vec<f64> = col.iter().copied().collect();
            v.sort_by(f64::total_cmp);
            v.dedup();
            let mut gaps: Vec<f64> = v.windows(2).map(|w| w[1] - w[0]).collect();
            if gaps.is_empty() {
                return 0.0;
            }
            gaps.sort_by(f64::total_cmp);
            gaps[gaps.len() / 2]
        })
        .collect()
}

/// `over`'s keys written into `base`, tables merged key by key; an isotropic `lengthscale` and
/// ARD `lengthscales` replace each other (a kernel takes one of them).
fn merge(base: &mut toml::Table, over: &toml::Table) {
    for (set, other) in [("lengthscale", "lengthscales"), ("lengthscales", "lengthscale")] {
        if over.contains_key(set) {
            base.remove(other);
        }
    }
    for (k, v) in over {
        match (base.get_mut(k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o),
            _ => {
                base.insert(k.clone(), v.clone());
            }
        }
    }
}

/// Whether `key` appears at any depth of `t`.
fn has_key(t: &toml::Table, key: &str) -> bool {
    t.iter().any(|(k, v)| k == key || matches!(v, toml::Value::Table(s) if has_key(s, key)))
}

/// Whether the user's `params` set the field at `path` (a path under `prefix`).
fn lookup(params: &toml::Table, path: &str, prefix: &str) -> bool {
    let rest = path.strip_prefix(prefix).unwrap_or(path).trim_start_matches('.');
    let mut t = params;
    let keys: Vec<&str> = rest.split('.').collect();
    for (n, k) in keys.iter().enumerate() {
        match t.get(*k) {
            Some(toml::Value::Table(s)) if n + 1 < keys.len() => t = s,
            Some(_) => return n + 1 == keys.len(),
            None => return false,
        }
    }
    false
}

/// Every `lengthscale` (a number) and `lengthscales` (an array of numbers) in `t`, with its path.
fn lengthscales(t: &toml::Table, at: &str) -> Vec<(String, Vec<f64>)> {
    let num = |v: &toml::Value| v.as_float().or_else(|| v.as_integer().map(|i| i as f64));
    let mut out = Vec::new();
    for (k, v) in t {
        let path = format!("{at}.{k}");
        match (k.as_str(), v) {
            (_, toml::Value::Table(s)) => out.extend(lengthscales(s, &path)),
            ("lengthscale", v) => out.extend(num(v).map(|l| (path, vec![l]))),
            ("lengthscales", toml::Value::Array(a)) => {
                let ls: Option<Vec<f64>> = a.iter().map(num).collect();
                out.extend(ls.map(|l| (path, l)));
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spacing_of_a_grid_is_its_step() {
        // [−5, 10] × [0, 15] in 10 points per side: steps 15/9 = 5/3 in both.
        let g = bohf_core::BoxDomain::new(vec![-5.0, 0.0], vec![10.0, 15.0]).unwrap().grid(10).unwrap();
        for h in spacing(&g) {
            assert!((h - 5.0 / 3.0).abs() < 1e-12, "{h}");
        }
        // Irregular values 0, 1, 3, 7: gaps 1, 2, 4, median (the upper middle) 2.
        let f = FiniteDomain::from_rows(&[vec![7.0], vec![0.0], vec![3.0], vec![1.0], vec![3.0]]).unwrap();
        assert_eq!(spacing(&f), vec![2.0]);
    }

    #[test]
    fn lengthscales_are_found_with_their_paths_and_merged_over_defaults() {
        let mut base: toml::Table =
            toml::from_str("[inference.kernel]\nkind = \"matern52\"\nlengthscale = 0.1\n").unwrap();
        let over: toml::Table = toml::from_str("[inference.kernel]\nlengthscales = [3, 0.5]\n").unwrap();
        merge(&mut base, &over);
        let mut found = lengthscales(&base, "p");
        found.sort_by(|a, b| a.0.cmp(&b.0));
        // The user's ARD lengthscales replace the default isotropic one.
        assert_eq!(found, vec![("p.inference.kernel.lengthscales".to_string(), vec![3.0, 0.5])]);
        assert!(lookup(&over, "p.inference.kernel.lengthscales", "p"));
        assert!(!lookup(&over, "p.inference.kernel.kind", "p"));
        let mut base: toml::Table = toml::from_str("[k]\nkind = \"se\"\nlengthscale = 0.1\nvariance = 2.0\n").unwrap();
        merge(&mut base, &toml::from_str("[k]\nvariance = 1.0\n").unwrap());
        assert_eq!(lengthscales(&base, "p"), vec![("p.k.lengthscale".to_string(), vec![0.1])]);
        assert!(has_key(&toml::from_str("[a.hyperparameters]\nx = 1\n").unwrap(), "hyperparameters"));
    }
}

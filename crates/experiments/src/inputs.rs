//! `problem.inputs`: the coordinates the algorithms see.
//!
//! By default (`inputs = "unit-cube"`) every coordinate is mapped affinely onto [0, 1] before an
//! algorithm sees it: a box problem's box becomes the unit cube [0, 1]^d, a finite candidate set
//! (a grid, a data table) is mapped by its bounding box ([`FiniteDomain::bounding_box`]: per
//! coordinate [min, max] ↦ [0, 1]; a coordinate constant over the candidates becomes ½). So a
//! kernel lengthscale means a share of each coordinate's range, as BoTorch's input normalisation
//! makes it, and the default lengthscale 0.1 (the papers', set for problems on [0, 1]) means a
//! tenth of the range on any problem. With `inputs = "raw"` the algorithms see the problem's own
//! coordinates (the papers' experiments, whose lengthscales are set for them).
//!
//! Only the algorithms see the mapped coordinates: [`InputMap::to_problem`] maps each query and
//! recommendation back before the respondent answers it and before it is recorded, so the regret,
//! `steps.csv`, summaries and reports are in the problem's own coordinates whatever `inputs` is.
//! A candidate keeps its index; its problem coordinates are looked up, not computed, so they are
//! exact. A box point is mapped back by [`BoxDomain::from_unit`].
//!
//! **Specs written before this key existed.** The default was the problem's own coordinates. A
//! results folder stores its spec as `bohf run` wrote it, and a spec written by an older bohf has no
//! `inputs` key: [`stored_inputs`] reads it as `raw`, what its runs used, so that `--resume` or
//! `merge` with a current spec (unit cube by default) is refused as a different spec instead of
//! mixing runs of two settings.

use crate::error::{ExperimentError, Result};
use bohf_core::{BoxDomain, Domain, FiniteDomain, Point, Query};
use serde::{Deserialize, Serialize};

/// `problem.inputs`: the coordinates the algorithms search (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Inputs {
    /// Each coordinate mapped affinely onto [0, 1] (a box by itself, a candidate set by its
    /// bounding box); recommendations and records stay in the problem's coordinates. The default.
    #[default]
    UnitCube,
    /// The problem's own coordinates (the papers' presets state it).
    Raw,
}

/// The map between the problem's coordinates and the ones the algorithms search.
#[derive(Debug, Clone)]
pub struct InputMap {
    /// The domain in the problem's coordinates.
    problem: Domain,
    /// The domain the algorithms search.
    search: Domain,
    /// The box mapped onto the unit cube (`None` with raw inputs).
    cube: Option<BoxDomain>,
}

impl InputMap {
    /// The map of `inputs` on `domain` (the problem's coordinates).
    pub fn new(domain: &Domain, inputs: Inputs) -> Result<Self> {
        let (search, cube) = match (inputs, domain) {
            (Inputs::Raw, _) => (domain.clone(), None),
            (Inputs::UnitCube, Domain::Box(b)) => (Domain::Box(BoxDomain::cube(0.0, 1.0, b.dim())?), Some(b.clone())),
            (Inputs::UnitCube, Domain::Finite(f)) => {
                let cube = f.bounding_box()?;
                let rows: Vec<Vec<f64>> =
                    (0..f.len()).map(|i| f.coords(i).map(|x| cube.to_unit(&x))).collect::<bohf_core::Result<_>>()?;
                let mut mapped = FiniteDomain::from_rows(&rows)?;
                if let Some(names) = f.names() {
                    mapped = mapped.with_names(names.to_vec())?;
                }
                (Domain::Finite(mapped), Some(cube))
            }
        };
        Ok(Self { problem: domain.clone(), search, cube })
    }

    /// The domain in the problem's coordinates.
    pub fn problem_domain(&self) -> &Domain {
        &self.problem
    }

    /// The domain the algorithms search (the problem's with raw inputs).
    pub fn search_domain(&self) -> &Domain {
        &self.search
    }

    /// The box that is mapped onto the unit cube (`None` with raw inputs).
    pub fn cube(&self) -> Option<&BoxDomain> {
        self.cube.as_ref()
    }

    /// A point of the search domain in the problem's coordinates: a candidate by its index, a box
    /// point by [`BoxDomain::from_unit`] (a coordinate outside [0, 1] is mapped without the clamp,
    /// so that the respondent refuses a point outside the box as it would without the map).
    pub fn point_to_problem(&self, p: &Point) -> Result<Point> {
        let Some(cube) = &self.cube else { return Ok(p.clone()) };
        match (p.index, &self.problem) {
            (Some(i), Domain::Finite(f)) => Ok(Point::candidate(i, f.coords(i).map_err(ExperimentError::Core)?)),
            _ => {
                let inside = cube.from_unit(&p.coords);
                let coords = p
                    .coords
                    .iter()
                    .zip(inside)
                    .enumerate()
                    .map(|(j, (&u, x))| {
                        if (0.0..=1.0).contains(&u) {
                            x
                        } else {
                            cube.lower()[j] + u * (cube.upper()[j] - cube.lower()[j])
                        }
                    })
                    .collect();
                Ok(Point { index: p.index, coords })
            }
        }
    }

    /// A query of an algorithm in the problem's coordinates (every point mapped by
    /// [`InputMap::point_to_problem`]).
    pub fn to_problem(&self, q: &Query) -> Result<Query> {
        if self.cube.is_none() {
            return Ok(q.clone());
        }
        let map = |p: &Point| self.point_to_problem(p);
        Ok(match q {
            Query::Duel(x, y) => Query::Duel(map(x)?, map(y)?),
            Query::Evaluate(x) => Query::Evaluate(map(x)?),
            Query::Label(x) => Query::Label(map(x)?),
            Query::Choice(options) => Query::Choice(options.iter().map(map).collect::<Result<_>>()?),
        })
    }
}

/// The `inputs` of a spec stored in a results folder, from its text: the key's value, or `raw`
/// where the `[problem]` table has no `inputs` key (a spec written before the key existed, whose
/// runs saw the problem's coordinates). `None` if the text has no `[problem]` table.
pub fn stored_inputs(text: &str) -> Option<Inputs> {
    let table: toml::Table = text.parse().ok()?;
    let problem = table.get("problem")?.as_table()?;
    match problem.get("inputs") {
        None => Some(Inputs::Raw),
        Some(v) => v.clone().try_into().ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 3 × 2 grid of [−5, 10] × [0, 15]: by hand, the corners go to 0 and 1 and the middle
    /// column to ½; the points come back exactly, by index.
    #[test]
    fn a_grid_maps_onto_the_unit_cube_and_back_by_index() {
        let grid = BoxDomain::new(vec![-5.0, 0.0], vec![10.0, 15.0]).unwrap().grid(3).unwrap();
        let map = InputMap::new(&Domain::Finite(grid.clone()), Inputs::UnitCube).unwrap();
        let Domain::Finite(seen) = map.search_domain() else { panic!() };
        assert_eq!(seen.coords(0).unwrap(), vec![0.0, 0.0]);
        assert_eq!(seen.coords(4).unwrap(), vec![0.5, 0.5]);
        assert_eq!(seen.coords(8).unwrap(), vec![1.0, 1.0]);
        let q = Query::Duel(seen.point(4).unwrap(), seen.point(8).unwrap());
        assert_eq!(map.to_problem(&q).unwrap(), Query::Duel(grid.point(4).unwrap(), grid.point(8).unwrap()));
        assert_eq!(grid.coords(4).unwrap(), vec![2.5, 7.5]);
    }

    /// A constant coordinate (a data table's column with one value) becomes ½.
    #[test]
    fn a_constant_coordinate_becomes_one_half() {
        let f = FiniteDomain::from_rows(&[vec![2.0, 7.0], vec![4.0, 7.0]]).unwrap();
        let map = InputMap::new(&Domain::Finite(f), Inputs::UnitCube).unwrap();
        let Domain::Finite(seen) = map.search_domain() else { panic!() };
        assert_eq!(seen.coords(0).unwrap(), vec![0.0, 0.5]);
        assert_eq!(seen.coords(1).unwrap(), vec![1.0, 0.5]);
    }

    /// A box: the algorithms search [0, 1]^d; (0.5, 0.2) is (2.5, 3) of [−5, 10] × [0, 15].
    #[test]
    fn a_box_becomes_the_unit_cube() {
        let b = BoxDomain::new(vec![-5.0, 0.0], vec![10.0, 15.0]).unwrap();
        let map = InputMap::new(&Domain::Box(b), Inputs::UnitCube).unwrap();
        let Domain::Box(seen) = map.search_domain() else { panic!() };
        assert_eq!((seen.lower(), seen.upper()), (&[0.0, 0.0][..], &[1.0, 1.0][..]));
        let back = map.point_to_problem(&Point::continuous(vec![0.5, 0.2])).unwrap();
        assert_eq!(back, Point::continuous(vec![2.5, 3.0]));
        // Outside the cube: mapped without the clamp (the respondent then refuses it).
        assert_eq!(map.point_to_problem(&Point::continuous(vec![1.2, 0.0])).unwrap().coords, vec![13.0, 0.0]);
    }

    #[test]
    fn raw_inputs_change_nothing() {
        let b = BoxDomain::new(vec![-5.0, 0.0], vec![10.0, 15.0]).unwrap();
        let map = InputMap::new(&Domain::Box(b.clone()), Inputs::Raw).unwrap();
        assert!(map.cube().is_none());
        let q = Query::Evaluate(Point::continuous(vec![3.0, 4.0]));
        assert_eq!(map.to_problem(&q).unwrap(), q);
    }

    /// A results folder whose `spec.toml` was written before `inputs` existed: read as raw, so a
    /// resume with the same text under the current defaults (the unit cube) is refused, naming
    /// `problem`, instead of mixing runs of two settings.
    #[test]
    fn an_old_results_folder_is_read_as_raw_and_not_mixed() {
        let dir = std::env::temp_dir().join(format!("bohf-inputs-old-folder-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let text = "name = \"old\"\nhorizon = 2\nruns = 1\n[problem]\nkind = \"ackley\"\npoints = 5\n\
                    [[algorithms]]\nname = \"uniform\"\n";
        std::fs::write(dir.join("spec.toml"), text).unwrap();
        let registry = crate::testing::registry();
        let stored = crate::folder::read_stored_spec(&dir, &registry).unwrap();
        assert_eq!(stored.problem.inputs(), Inputs::Raw);
        let current = crate::ExperimentSpec::from_toml_str(text).unwrap();
        assert_eq!(current.problem.inputs(), Inputs::UnitCube);
        assert_eq!(crate::folder::spec_differences(&stored, &current), ["problem"]);
        // A spec written now records the key, and reads back as written.
        let written = current.to_toml_string().unwrap();
        assert!(written.contains("inputs = \"unit-cube\""), "{written}");
        assert_eq!(stored_inputs(&written), Some(Inputs::UnitCube));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_stored_spec_without_the_key_ran_on_raw_inputs() {
        assert_eq!(stored_inputs("name = \"a\"\n[problem]\nkind = \"rkhs\"\n"), Some(Inputs::Raw));
        assert_eq!(stored_inputs("[problem]\nkind = \"rkhs\"\ninputs = \"unit-cube\"\n"), Some(Inputs::UnitCube));
        assert_eq!(stored_inputs("name = \"a\"\n"), None);
    }
}

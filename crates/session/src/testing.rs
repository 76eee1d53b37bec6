//! Fixtures for tests of the session front ends (feature `test-support`, never in a release build):
//! an algorithm that asks best-of-k choices, which no built-in algorithm does yet. Helpers here may
//! panic: they serve tests.

use bohf_core::Answer;

/// A test-only algorithm that asks best-of-3 choices between random distinct candidates and
/// recommends the option chosen most often (simpler than qEUBO, the built-in algorithm that asks
/// choices with `q` ≥ 3). Its answer type is checked ([`bohf_core::Query::check_answer`]).
pub struct ThreeWay {
    domain: bohf_core::FiniteDomain,
    chosen: Vec<usize>,
}

impl bohf_core::Optimizer for ThreeWay {
    fn name(&self) -> &'static str {
        "three-way"
    }
    fn suggest(&mut self, rng: &mut dyn bohf_core::rand::Rng) -> bohf_core::Result<bohf_core::Query> {
        use bohf_core::rand::RngExt;
        if self.domain.len() < 3 {
            return Err(bohf_core::Error::invalid("candidates", "three-way needs at least 3 candidates"));
        }
        let mut picked: Vec<usize> = Vec::new();
        while picked.len() < 3 {
            let i = rng.random_range(0..self.domain.len());
            if !picked.contains(&i) {
                picked.push(i);
            }
        }
        Ok(bohf_core::Query::Choice(picked.into_iter().map(|i| self.domain.point(i)).collect::<Result<_, _>>()?))
    }
    fn observe(&mut self, query: &bohf_core::Query, answer: Answer) -> bohf_core::Result<()> {
        query.check_answer(&answer)?;
        let options = query.choice_options(self.name())?;
        let winner = options[answer.choice_index(options.len())?].index.expect("a candidate");
        self.chosen[winner] += 1;
        Ok(())
    }
    fn recommend(&self) -> bohf_core::Result<bohf_core::Point> {
        let best = (0..self.chosen.len()).fold(0, |b, i| if self.chosen[i] > self.chosen[b] { i } else { b });
        self.domain.point(best)
    }
}

/// The built-in registry plus `three-way` ([`ThreeWay`]); use it with [`crate::Session::create_with`]
/// and [`crate::Session::open_with`].
pub fn three_way_registry() -> bohf_experiments::Registry {
    let mut r = bohf_registry::builtin();
    r.register(bohf_experiments::AlgorithmEntry::new(
        "three-way",
        "best-of-3 choices between random candidates (test)",
        |_, _| Ok(()),
        |ctx, _| {
            let domain = ctx.domain().clone();
            let chosen = vec![0; domain.len()];
            Ok(Box::new(ThreeWay { domain, chosen }) as bohf_experiments::BoxedOptimizer)
        },
    ))
    .unwrap();
    r
}

//! Scratch fingerprint (not committed).
use bohf_core::rand::RngExt;
use bohf_core::{Answer, FiniteDomain, Query, SearchContext};
use bohf_experiments::Registry;

fn f(x: f64) -> f64 {
    3.0 * (6.0 * x).sin() + 2.0 * x
}

#[test]
fn fingerprint() {
    let reg = Registry::builtin();
    let grid = FiniteDomain::linspace(0.0, 1.0, 25).unwrap();
    let fmax = (0..25).map(|i| f(grid.coords(i).unwrap()[0])).fold(f64::MIN, f64::max);
    let mut out = String::new();
    for name in ["pf-ts", "mr-lpf", "pop-bo", "maxminlcb", "gp-ucb", "gp-ts", "random"] {
        let ctx = SearchContext::new(grid.clone(), 30).unwrap();
        let mut opt = reg.get(name).unwrap().build(&ctx, &toml::Table::new()).unwrap();
        let mut rng = bohf_core::rng::seeded(7);
        let mut env = bohf_core::rng::seeded(99);
        let mut line = format!("{name}:");
        let mut regret = 0.0;
        for _ in 0..30 {
            let q = opt.suggest(&mut rng).unwrap();
            let a = match &q {
                Query::Duel(p, r) => {
                    let d = f(p.coords[0]) - f(r.coords[0]);
                    regret += fmax - 0.5 * (f(p.coords[0]) + f(r.coords[0]));
                    line += &format!(" ({:?},{:?})", p.index, r.index);
                    Answer::Duel { first_wins: env.random::<f64>() < 1.0 / (1.0 + (-d).exp()) }
                }
                Query::Evaluate(p) => {
                    regret += fmax - f(p.coords[0]);
                    line += &format!(" {:?}", p.index);
                    Answer::Value(f(p.coords[0]) + 0.1 * (env.random::<f64>() - 0.5))
                }
                Query::Label(_) => unreachable!(),
            };
            opt.observe(&q, a).unwrap();
        }
        let rec = opt.recommend().unwrap();
        line += &format!("\n  R(30) = {regret:.15e}, rec = {:?} {:?}", rec.index, rec.coords);
        out += &line;
        out += "\n";
    }
    std::fs::write(std::env::var("FP_OUT").unwrap(), out).unwrap();
}

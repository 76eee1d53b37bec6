//! Tests of the dual: its derivatives and its weak-duality bound.

use super::newton::split;
use super::*;
use crate::conic::ConicData;
use crate::dense::Directions;
use crate::{ConfidenceConfig, ConfidenceProblem, ConfidenceSet, Observation};
use bohf_core::Duel;
use bohf_core::rand::RngExt;

/// A small problem: 12 points on [0, 1], SE kernel ℓ = 0.3, 25 duels or labels from a smooth
/// utility, latent box 1.5 or none.
pub(crate) fn problem(seed: u64, duels: bool, latent_box: Option<f64>) -> (DMatrix<f64>, ConfidenceProblem) {
    problem_with_nugget(seed, duels, latent_box, 1e-8)
}

/// [`problem`] with the Gram's nugget `nugget` (1e-8 there: an ill-conditioned K).
pub(crate) fn problem_with_nugget(
    seed: u64,
    duels: bool,
    latent_box: Option<f64>,
    nugget: f64,
) -> (DMatrix<f64>, ConfidenceProblem) {
    let mut r = bohf_core::rng::seeded(seed);
    let n = 12;
    let x: Vec<f64> = (0..n).map(|i| i as f64 / (n - 1) as f64).collect();
    let gram = DMatrix::from_fn(n, n, |i, j| (-(x[i] - x[j]).powi(2) / (2.0 * 0.09)).exp());
    let f = |i: usize| 2.0 * (4.0 * x[i]).sin();
    let obs: Vec<Observation> = (0..25)
        .map(|_| {
            let i = r.random_range(0..n);
            if duels {
                let j = r.random_range(0..n);
                let p = 1.0 / (1.0 + (f(j) - f(i)).exp());
                Observation::Duel(Duel::new(i, j, r.random::<f64>() < p))
            } else {
                Observation::Label { point: i, positive: r.random::<f64>() < 1.0 / (1.0 + (-f(i)).exp()) }
            }
        })
        .collect();
    let config = ConfidenceConfig { latent_box, nugget, ..ConfidenceConfig::with_norm_bound(5.0) };
    let support: Vec<usize> = (0..n).collect();
    (gram.clone(), ConfidenceProblem::on_candidates(&gram, &support, &obs, &config).unwrap())
}

/// The dual of max gᵀp over the confidence set of `threshold`, with the candidate's box row
/// `candidate` and box `bound` (infinite: none), as [`solve`] builds it.
pub(crate) fn linear_dual<'a>(
    data: &'a ConicData,
    dirs: &'a Directions,
    g: &'a DVector<f64>,
    threshold: f64,
    candidate: Option<DVector<f64>>,
    bound: f64,
) -> Dual<'a> {
    let n = data.l.nrows();
    let program = Program {
        data,
        dirs,
        objective: Objective::Linear(g),
        kappa: Some(data.constant - threshold),
        candidate,
        n,
        dim: n + 1,
        total: data.total_weight(),
    };
    Dual {
        program,
        g: g.clone(),
        lambda_free: true,
        bound,
        tolerance: 1e-9,
        clip: None,
        candidate_on_support: false,
        stop_at: None,
        budget: std::cell::Cell::new(u32::MAX),
        spare: std::cell::RefCell::new(None),
    }
}

/// D's gradient and Hessian (module docs) against central differences of D and of the
/// gradient, at multipliers away from the optimum, with two box rows and the candidate's row
/// in the working set.
#[test]
fn dual_gradient_and_hessian_match_finite_differences() {
    for (seed, duels) in [(1u64, true), (2, false)] {
        let (_, prob) = problem(seed, duels, Some(1.5));
        let data = prob.conic_data();
        let dirs = Directions::new(data);
        let n = data.l.nrows();
        let mle = prob.mle().unwrap();
        let kx = DVector::from_fn(n, |i, _| data.l[(3, i)] * 0.5 + data.l[(7, i)] * 0.5);
        let mut c = DVector::zeros(n + 1);
        c.rows_mut(0, n).copy_from(&kx);
        c[n] = 0.3;
        let g = DVector::from_fn(n + 1, |i, _| if i < n { c[i] - data.l[(5, i)] } else { c[i] });
        let dual = linear_dual(data, &dirs, &g, mle.log_likelihood - 1.0, Some(c.clone()), 1.5);
        let rows = [BoxRow::Support(2, true), BoxRow::Support(9, false), BoxRow::Candidate(true)];
        let x0 = DVector::from_vec(vec![0.7, 0.05, 0.2, 0.1, 0.3]);
        let at = |x: &DVector<f64>| {
            let (m, nu) = split(&dual, x);
            dual.point(m, &rows, &nu, &DVector::zeros(n + 1)).unwrap()
        };
        let p0 = at(&x0);
        for j in 0..x0.len() {
            let h = 1e-5 * x0[j];
            let mut xp = x0.clone();
            xp[j] += h;
            let mut xm = x0.clone();
            xm[j] -= h;
            let (dp, dm) = (at(&xp), at(&xm));
            let fd = (dp.value - dm.value) / (2.0 * h);
            assert!((fd - p0.grad[j]).abs() <= 1e-6 * (1.0 + fd.abs()), "seed {seed}: ∂D/∂x{j} {} vs {fd}", p0.grad[j]);
            for i in 0..x0.len() {
                let fd2 = (dp.grad[i] - dm.grad[i]) / (2.0 * h);
                let scale = 1.0 + p0.hess[(i, i)].abs().max(p0.hess[(j, j)].abs());
                assert!(
                    (fd2 - p0.hess[(i, j)]).abs() <= 1e-4 * scale,
                    "seed {seed}: ∂²D/∂x{i}∂x{j} {} vs {fd2}",
                    p0.hess[(i, j)]
                );
            }
        }
    }
}

/// Weak duality, checked against clarabel: D's certified upper bound at arbitrary multipliers
/// is at least the program's optimum (the optimistic advantage, with and without the box).
#[test]
fn dual_bound_is_above_clarabel_optimum() {
    for (seed, duels, latent_box) in [(3u64, true, None), (4, false, Some(1.5)), (5, true, Some(1.0))] {
        let (gram, prob) = problem(seed, duels, latent_box);
        let mle = prob.mle().unwrap();
        let beta = 1.0;
        let cand = prob.candidates_from_gram(&gram, &[4]).unwrap().remove(0);
        let mut set = ConfidenceSet::new(&prob, &mle, beta).unwrap();
        let reference = set.optimistic_advantage(&cand, 8).unwrap().value;
        let data = prob.conic_data();
        let dirs = Directions::new(data);
        let n = data.l.nrows();
        let c = cand.row();
        let g = DVector::from_fn(n + 1, |i, _| if i < n { c[i] - data.l[(8, i)] } else { c[i] });
        let bound = latent_box.unwrap_or(f64::INFINITY);
        let dual = linear_dual(data, &dirs, &g, mle.log_likelihood - beta, latent_box.map(|_| c.clone()), bound);
        let mut r = bohf_core::rng::seeded(seed);
        let rows: Vec<BoxRow> =
            if latent_box.is_some() { vec![BoxRow::Support(1, true), BoxRow::Candidate(false)] } else { vec![] };
        for _ in 0..20 {
            let m = Multipliers { lambda: r.random_range(0.0..3.0), mu: r.random_range(1e-3..2.0) };
            let nu: Vec<f64> = rows.iter().map(|_| r.random_range(0.0..1.0)).collect();
            let point = dual.point(m, &rows, &nu, &DVector::zeros(n + 1)).unwrap();
            assert!(point.upper >= reference - 1e-7 * reference.abs().max(1.0), "D = {} < {reference}", point.upper);
        }
    }
}

/// The pull-inside's boundary search ([`Segment::boundary`]: bisection on the cheap rows, regula
/// falsi on the likelihood row) against plain bisection on all rows ([`bisect`] on
/// [`Segment::passes`], a second method): the same contract (lo passes or is 0, hi fails or is 1,
/// hi − lo ≤ 10⁻¹⁵) and the same end to 10⁻¹¹ (the band in which the row's rounding decides),
/// for margins 1 and −2, on segments where the
/// likelihood row binds, where a box row binds and where the whole segment passes, with and
/// without the latent box, labels and duels.
#[test]
fn the_segments_boundary_is_the_bisections() {
    let mut likelihood_bound = 0;
    for (seed, duels, latent_box) in
        [(11u64, false, Some(1.5)), (12, true, Some(1.0)), (13, false, None), (14, true, None)]
    {
        let (gram, prob) = problem(seed, duels, latent_box);
        let mle = prob.mle().unwrap();
        let cand = prob.candidates_from_gram(&gram, &[4]).unwrap().remove(0);
        let data = prob.conic_data();
        let dirs = Directions::new(data);
        let n = data.l.nrows();
        let c = cand.row();
        let bound = latent_box.unwrap_or(f64::INFINITY);
        let dual = linear_dual(data, &dirs, &c, mle.log_likelihood - 1.0, latent_box.map(|_| c.clone()), bound);
        let program = &dual.program;
        let (anchor, _) = program.interior_start(&mle.w.clone()).unwrap();
        let mut r = bohf_core::rng::seeded(seed);
        for k in 0..12 {
            let scale = [0.3, 3.0, 30.0][k % 3];
            let d = DVector::from_fn(n + 1, |_, _| r.random_range(-1.0..1.0) * scale);
            let segment = Segment::new(program, &anchor, &d);
            for margin in [1.0, -2.0] {
                let (lo_b, hi_b) = bisect(|t| segment.passes(t, margin));
                let (lo, hi) = segment.boundary(margin);
                assert!(lo == 0.0 || segment.passes(lo, margin), "seed {seed}, {k}: lo {lo}");
                assert!(hi == 1.0 || !segment.passes(hi, margin), "seed {seed}, {k}: hi {hi}");
                assert!(hi - lo <= 1e-15, "seed {seed}, {k}: bracket {lo}, {hi}");
                // Where the row is flat along the segment its rounding makes the end a band (seen:
                // 1.7e-14 wide); both searches end inside it.
                assert!((lo - lo_b).abs() <= 1e-11 && (hi - hi_b).abs() <= 1e-11, "seed {seed}, {k}: {lo} vs {lo_b}");
                if lo < 1.0 && segment.cheap_rows_pass(hi, margin) {
                    likelihood_bound += 1;
                }
            }
        }
    }
    assert!(likelihood_bound >= 10, "the likelihood row bound in {likelihood_bound} searches only");
}

/// AAᵀ from K = LLᵀ ([`crate::dense::Directions::aat`]) against the product of A's rows themselves, for
/// labels and duels with and without the latent box (duels' directions are differences of
/// rows of L, the box adds single rows), exactly symmetric.
#[test]
fn aat_from_the_support_gram_is_the_product_of_the_directions() {
    for (seed, duels, latent_box) in [(3u64, false, Some(1.5)), (4, true, None), (5, true, Some(2.0))] {
        let (_, prob) = problem(seed, duels, latent_box);
        let data = prob.conic_data();
        let dirs = crate::dense::Directions::new(data);
        let aat = dirs.aat(data);
        let reference = &dirs.a * dirs.a.transpose();
        let scale = 1.0 + reference.amax();
        assert!((aat - &reference).amax() <= 1e-13 * scale, "seed {seed}");
        assert_eq!(aat, &aat.transpose(), "seed {seed}: symmetric");
    }
}

/// The inner Hessian's latent-space form H⁻¹ = L⁻¹(λG + μK⁻¹)⁻¹L⁻ᵀ ([`InnerFactor`]) against
/// two independent computations of H⁻¹R: the Woodbury form, and H = λAᵀDA + μI formed from the
/// directions and solved by nalgebra's (unblocked) Cholesky; for labels and duels, with and
/// without the latent box, at small and large μ/λ. On these well-conditioned Grams (nugget 1e-2)
/// the three agree to 1e-10 relative (measured: at most 1.6e-12); the ill-conditioned bench
/// instance (nugget 1e-6) is recorded in docs/confidence.md.
#[test]
fn latent_form_matches_the_woodbury_form() {
    use super::inner::Form;
    let mut worst = 0.0f64;
    for (seed, duels, latent_box) in [(11u64, true, Some(1.5)), (12, true, None), (13, false, Some(2.0))] {
        let mut r = bohf_core::rng::seeded(seed);
        let n = 12;
        let x: Vec<f64> = (0..n).map(|i| i as f64 / (n - 1) as f64).collect();
        let gram = DMatrix::from_fn(n, n, |i, j| (-(x[i] - x[j]).powi(2) / (2.0 * 0.09)).exp());
        let obs: Vec<Observation> = (0..30)
            .map(|_| {
                let i = r.random_range(0..n);
                if duels {
                    let j = (i + 1 + r.random_range(0..n - 1)) % n;
                    Observation::Duel(Duel::new(i, j, r.random::<f64>() < 0.6))
                } else {
                    Observation::Label { point: i, positive: r.random::<f64>() < 0.6 }
                }
            })
            .collect();
        let config = ConfidenceConfig { latent_box, nugget: 1e-2, ..ConfidenceConfig::with_norm_bound(5.0) };
        let support: Vec<usize> = (0..n).collect();
        let prob = ConfidenceProblem::on_candidates(&gram, &support, &obs, &config).unwrap();
        let data = prob.conic_data();
        let dirs = Directions::new(data);
        let g = DVector::from_fn(n + 1, |i, _| (i as f64 * 0.3).cos());
        let dual = linear_dual(data, &dirs, &g, 0.0, None, f64::INFINITY);
        let program = &dual.program;
        let p = DVector::from_fn(n + 1, |i, _| 0.2 * (i as f64 * 0.7).sin());
        let e = program.eval(&p);
        let rhs = DMatrix::from_fn(n, 3, |i, j| ((i * 7 + j * 5) % 11) as f64 / 5.0 - 1.0);
        for (lambda, mu) in [(0.8, 0.3), (5.0, 1e-3), (0.01, 2.0)] {
            let latent = InnerFactor::with_form(program, &e, lambda, mu, &dual.spare, Form::Latent).unwrap();
            let wood = InnerFactor::with_form(program, &e, lambda, mu, &dual.spare, Form::Woodbury).unwrap();
            // H formed entry by entry from the terms' directions (r_τ = ±A[dir]).
            let mut h = DMatrix::<f64>::identity(n, n) * mu;
            for (tau, &v) in e.v.iter().enumerate() {
                let row = dirs.a.row(dirs.term_dir[tau]).transpose();
                let c = lambda * data.weights[tau] * bohf_core::Link::Logistic.dmu(v);
                h += &row * row.transpose() * c;
            }
            let reference = nalgebra::Cholesky::new(h).unwrap().solve(&rhs);
            let scale = reference.amax();
            let got = latent.solve_matrix(&rhs).unwrap();
            worst = worst.max((&got - &reference).amax() / scale);
            assert!((&got - &reference).amax() <= 1e-10 * scale, "seed {seed} ({lambda}, {mu}): latent vs dense");
            assert!(
                (&got - wood.solve_matrix(&rhs).unwrap()).amax() <= 1e-10 * scale,
                "seed {seed} ({lambda}, {mu}): latent vs Woodbury"
            );
            for k in 0..rhs.ncols() {
                let one = latent.solve(&rhs.column(k).clone_owned()).unwrap();
                assert!((one - got.column(k)).amax() <= 1e-12 * scale, "seed {seed}: one column");
            }
        }
    }
    eprintln!("latent form against the dense solve: worst {worst:.1e} of max |H⁻¹R|");
}

/// A line-search trial given up early ([`Dual::point_below`]) is one whose full evaluation
/// would end above the level: from starts near and far, a level just above D's value at the
/// trial gives the same point as [`Dual::point`], and one below it by more than the rounding
/// gives `None` (checked against the full evaluation, an independent computation of D there).
#[test]
fn a_trial_is_given_up_only_above_its_level() {
    for (seed, duels) in [(1u64, true), (2, false)] {
        let (_, prob) = problem(seed, duels, Some(1.5));
        let data = prob.conic_data();
        let dirs = Directions::new(data);
        let n = data.l.nrows();
        let mle = prob.mle().unwrap();
        let mut c = DVector::zeros(n + 1);
        c.rows_mut(0, n).copy_from(&(data.l.row(4).transpose()));
        let g = c.clone();
        let dual = linear_dual(data, &dirs, &g, mle.log_likelihood - 1.0, Some(c), 1.5);
        let rows = [BoxRow::Support(2, true)];
        for (x, start) in [([0.7, 0.05, 0.2], 0.0), ([0.1, 0.5, 0.0], 0.3), ([3.0, 0.01, 0.4], -0.2)] {
            let (m, nu) = split(&dual, &DVector::from_row_slice(&x));
            let start = DVector::from_element(n + 1, start);
            let full = dual.point(m, &rows, &nu, &start).unwrap();
            let scale = 1.0 + full.value.abs();
            let kept = dual.point_below(m, &rows, &nu, &start, Some(full.value + 1e-9 * scale)).unwrap();
            assert_eq!(kept.value, full.value, "seed {seed}: {x:?}");
            assert!(
                dual.point_below(m, &rows, &nu, &start, Some(full.value - 1e-6 * scale)).is_none(),
                "seed {seed}: {x:?}"
            );
        }
    }
}

/// The latent form's accuracy on the bench's 500-duel instance (20×20 grid, SE kernel ℓ = 0.2,
/// nugget 1e-6, n = 361 support points, 496 distinct duels): H⁻¹R for ten right-hand sides at the
/// MLE, at the multipliers a cold bound there passes through, against H formed and solved by
/// nalgebra's Cholesky, and against the Woodbury form; printed (docs/confidence.md records them).
/// `cargo test -p bohf-confidence --release -- --ignored latent_form_accuracy --nocapture`.
#[test]
#[ignore]
fn latent_form_accuracy_on_the_bench_instance() {
    use super::inner::Form;
    let side = 20;
    let x: Vec<(f64, f64)> = (0..side * side).map(|i| ((i % side) as f64 / 19.0, (i / side) as f64 / 19.0)).collect();
    let gram = DMatrix::from_fn(x.len(), x.len(), |i, j| {
        let d2 = (x[i].0 - x[j].0).powi(2) + (x[i].1 - x[j].1).powi(2);
        (-d2 / (2.0 * 0.04)).exp()
    });
    let f = |i: usize| 2.0 * (3.0 * x[i].0).sin() * (2.0 * x[i].1).cos();
    let mut r = bohf_core::rng::seeded(5);
    let obs: Vec<Observation> = (0..500)
        .map(|_| {
            let i = r.random_range(0..x.len());
            let j = r.random_range(0..x.len());
            let p = 1.0 / (1.0 + (-(f(i) - f(j))).exp());
            Observation::Duel(Duel::new(i, j, r.random::<f64>() < p))
        })
        .collect();
    let config = ConfidenceConfig { latent_box: Some(3.0), nugget: 1e-6, ..ConfidenceConfig::with_norm_bound(16.0) };
    let prob = ConfidenceProblem::on_candidates(&gram, &[], &obs, &config).unwrap();
    let mle = prob.mle().unwrap();
    let data = prob.conic_data();
    let dirs = Directions::new(data);
    let n = data.l.nrows();
    let g = DVector::from_fn(n + 1, |i, _| (i as f64 * 0.3).cos());
    let dual = linear_dual(data, &dirs, &g, 0.0, None, f64::INFINITY);
    let program = &dual.program;
    let mut p = DVector::zeros(n + 1);
    p.rows_mut(0, n).copy_from(&mle.w);
    let e = program.eval(&p);
    let rhs = DMatrix::from_fn(n, 10, |i, j| ((i * 7 + j * 5) % 11) as f64 / 5.0 - 1.0);
    let diag = data.l.diagonal();
    eprintln!("n = {n}, L's diagonal in [{:.2e}, {:.2e}]", diag.min(), diag.max());
    for (lambda, mu) in [(1.0, 3.74), (0.96, 2.07e-2), (0.26, 5.72e-3), (0.1, 1e-4)] {
        let latent = InnerFactor::with_form(program, &e, lambda, mu, &dual.spare, Form::Latent).unwrap();
        let wood = InnerFactor::with_form(program, &e, lambda, mu, &dual.spare, Form::Woodbury).unwrap();
        let mut h = DMatrix::<f64>::identity(n, n) * mu;
        for (tau, &v) in e.v.iter().enumerate() {
            let row = dirs.a.row(dirs.term_dir[tau]).transpose();
            h += &row * row.transpose() * (lambda * data.weights[tau] * bohf_core::Link::Logistic.dmu(v));
        }
        let reference = nalgebra::Cholesky::new(h).unwrap().solve(&rhs);
        let rel = |x: &DMatrix<f64>| {
            (0..rhs.ncols())
                .map(|k| (x.column(k) - reference.column(k)).norm() / reference.column(k).norm())
                .fold(0.0f64, f64::max)
        };
        let (l_err, w_err) = (rel(&latent.solve_matrix(&rhs).unwrap()), rel(&wood.solve_matrix(&rhs).unwrap()));
        eprintln!("(λ, μ) = ({lambda}, {mu}): relative error of H⁻¹R, latent {l_err:.1e}, Woodbury {w_err:.1e}");
    }
}

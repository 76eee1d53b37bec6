use super::*;

/// Records the first coordinate of every evaluated point; rejects anything but evaluations.
struct Recorder(Vec<f64>);

impl Optimizer for Recorder {
    fn name(&self) -> &'static str {
        "recorder"
    }
    fn suggest(&mut self, _: &mut dyn Rng) -> Result<Query> {
        Ok(Query::Evaluate(Point::continuous(vec![0.0])))
    }
    fn observe(&mut self, query: &Query, _: Answer) -> Result<()> {
        match query {
            Query::Evaluate(p) => {
                self.0.push(p.coords[0]);
                Ok(())
            }
            other => Err(crate::Error::invalid("query", format!("{} evaluates, got {other:?}", self.name()))),
        }
    }
    fn recommend(&self) -> Result<Point> {
        Ok(Point::continuous(vec![0.0]))
    }
}

#[test]
fn default_observe_batch_observes_in_order_and_names_the_failing_entry() {
    let eval = |x: f64| (Query::Evaluate(Point::continuous(vec![x])), Answer::Value(x));
    let mut r = Recorder(Vec::new());
    r.observe_batch(&[eval(1.0), eval(2.0)]).unwrap();
    assert_eq!(r.0, vec![1.0, 2.0]);
    let duel = (Query::Duel(Point::continuous(vec![0.0]), Point::continuous(vec![1.0])), Answer::Value(0.0));
    let e = r.observe_batch(&[eval(3.0), duel, eval(4.0)]).unwrap_err().to_string();
    assert!(e.contains("history entry 1: recorder evaluates"), "{e}");
    // The default is step by step: the entry before the failure stays recorded, none after it.
    assert_eq!(r.0, vec![1.0, 2.0, 3.0]);
}

#[test]
fn the_default_abstention_is_dropped() {
    let mut r = Recorder(Vec::new());
    let q = Query::Evaluate(Point::continuous(vec![5.0]));
    r.observe_abstention(&q, Abstention::Skip).unwrap();
    r.observe_abstention(&q, Abstention::NoPreference).unwrap();
    assert!(r.0.is_empty(), "a dropped abstention changed the state: {:?}", r.0);
    r.observe(&q, Answer::Value(1.0)).unwrap();
    assert_eq!(r.0, vec![5.0]);
}

#[test]
fn duel_accessors_reject_other_kinds_naming_the_field() {
    let p = Point::continuous(vec![0.5]);
    let e = Query::Evaluate(p.clone()).duel_points("X").unwrap_err().to_string();
    assert!(e.contains("`query`") && e.contains("X asks duels"), "{e}");
    assert!(Answer::Value(1.0).duel_outcome().unwrap_err().to_string().contains("`answer`"));
    assert!(!Answer::Duel { first_wins: false }.duel_outcome().unwrap());
    let d = Duel::new(3, 5, false);
    assert_eq!((d.pair(), d.winner(), d.label()), ((3, 5), 5, 0.0));
}

#[test]
fn a_choice_is_checked_naming_the_field() {
    let c = |i: usize| Point::candidate(i, vec![i as f64]);
    let x = |v: f64| Point::continuous(vec![v, 1.0]);
    let three = Query::Choice(vec![c(4), c(0), c(7)]);
    three.check().unwrap();
    assert_eq!(three.points().len(), 3);
    assert_eq!(three.choice_options("X").unwrap().len(), 3);
    // k < 2.
    for q in [Query::Choice(vec![]), Query::Choice(vec![c(1)])] {
        let e = q.check().unwrap_err().to_string();
        assert!(e.contains("`query`") && e.contains("at least 2 options"), "{e}");
    }
    // A repeated option: the same candidate index, or equal coordinates without an index.
    let e = Query::Choice(vec![c(4), c(0), c(4)]).check().unwrap_err().to_string();
    assert!(e.contains("`query`") && e.contains("option 2 of the choice repeats option 0"), "{e}");
    let e = Query::Choice(vec![x(0.5), x(0.25), x(0.5)]).check().unwrap_err().to_string();
    assert!(e.contains("option 2 of the choice repeats option 0"), "{e}");
    Query::Choice(vec![x(0.5), x(0.25)]).check().unwrap();
    // The answer: an index below k, of the right kind.
    three.check_answer(&Answer::Choice { index: 2 }).unwrap();
    let e = three.check_answer(&Answer::Choice { index: 3 }).unwrap_err().to_string();
    assert!(e.contains("`answer.index`") && e.contains("option 3 does not exist") && e.contains("3 options"), "{e}");
    let e = three.check_answer(&Answer::Duel { first_wins: true }).unwrap_err().to_string();
    assert!(e.contains("`answer`") && e.contains("a choice between 3 options"), "{e}");
    let e = Query::Duel(c(0), c(1)).check_answer(&Answer::Choice { index: 0 }).unwrap_err().to_string();
    assert!(e.contains("`answer`") && e.contains("a duel"), "{e}");
    assert!(Query::Choice(vec![]).check_answer(&Answer::Choice { index: 0 }).is_err());
    assert_eq!(Answer::Choice { index: 1 }.choice_index(3).unwrap(), 1);
    assert!(Answer::Choice { index: 3 }.choice_index(3).unwrap_err().to_string().contains("`answer.index`"));
    assert!(Answer::Value(1.0).choice_index(3).unwrap_err().to_string().contains("`answer`"));
    assert!(Query::Evaluate(c(0)).choice_options("X").unwrap_err().to_string().contains("X asks choices"));
    // The index form.
    let ch = Choice::new(vec![5, 2, 9], 1).unwrap();
    assert_eq!((ch.options(), ch.chosen(), ch.winner()), (&[5, 2, 9][..], 1, 2));
    assert!(Choice::new(vec![5], 0).unwrap_err().to_string().contains("at least 2 options"));
    assert!(Choice::new(vec![5, 2, 5], 0).unwrap_err().to_string().contains("repeats option 0"));
    assert!(Choice::new(vec![5, 2], 2).unwrap_err().to_string().contains("`answer.index`"));
}

#[test]
fn a_search_context_needs_a_positive_horizon() {
    let dom = crate::FiniteDomain::linspace(0.0, 1.0, 3).unwrap();
    assert!(SearchContext::new(dom.clone(), 0).unwrap_err().to_string().contains("`horizon`"));
    let ctx = SearchContext::new(dom.clone(), 7).unwrap();
    assert_eq!((ctx.domain().len(), ctx.horizon()), (3, 7));
    // A context of either kind narrows to the typed context of its kind only.
    let any: SearchContext<crate::Domain> = ctx.clone().into();
    assert_eq!(any.kind(), crate::DomainKind::Finite);
    assert_eq!(any.finite(), Some(ctx));
    assert_eq!(any.boxed(), None);
    let cube = crate::BoxDomain::cube(0.0, 1.0, 2).unwrap();
    let any: SearchContext<crate::Domain> = SearchContext::new(cube.clone(), 4).unwrap().into();
    assert_eq!(
        (any.kind(), any.finite(), any.boxed().map(|b| b.domain().clone())),
        (crate::DomainKind::Box, None, Some(cube))
    );
    assert!(SearchContext::new(crate::BoxDomain::cube(0.0, 1.0, 1).unwrap(), 0).is_err());
}

#[test]
fn duels_and_choices_of_points_are_the_same_types_as_by_index() {
    // Coordinates as options (a box): the same checks as by index, equal coordinates repeat.
    let p = |v: f64| vec![v, 0.5];
    let ch = Choice::new(vec![p(0.1), p(0.7), p(0.3)], 2).unwrap();
    assert_eq!((ch.chosen(), ch.chosen_option()), (2, &p(0.3)));
    assert!(Choice::new(vec![p(0.1), p(0.7), p(0.1)], 0).unwrap_err().to_string().contains("repeats option 0"));
    assert!(Choice::new(vec![p(0.1), p(0.7)], 2).unwrap_err().to_string().contains("`answer.index`"));
    // A duel maps its options and keeps its answer; both kinds convert into a Comparison.
    let d = Duel { first: p(0.1), second: p(0.7), first_wins: false };
    assert_eq!(d.label(), 0.0);
    assert_eq!(d.map(|x| x[0] > 0.5), Duel { first: false, second: true, first_wins: false });
    assert_eq!(
        Comparison::from(Duel::new(3, 1, true)),
        Comparison::Duel(Duel { first: 3, second: 1, first_wins: true })
    );
    assert!(matches!(Comparison::from(ch), Comparison::Choice(c) if c.options().len() == 3));
}

#[test]
fn an_evaluation_answer_is_a_finite_value() {
    assert_eq!(Answer::Value(-2.5).value().unwrap(), -2.5);
    for bad in [Answer::Value(f64::NAN), Answer::Value(f64::INFINITY), Answer::Duel { first_wins: true }] {
        let e = bad.value().unwrap_err();
        assert!(matches!(&e, crate::Error::InvalidParameter { name, .. } if name == "answer"), "{e}");
    }
    assert!(Answer::Value(f64::NAN).value().unwrap_err().to_string().contains("must be finite"));
    assert!(Answer::Label { accept: true }.value().unwrap_err().to_string().contains("needs Answer::Value"));
}

/// One query of every kind: `Query::kind` names it, and only the answers of that kind fit it.
#[test]
fn every_query_kind_has_a_query_and_an_answer() {
    let p = |x: f64| Point::continuous(vec![x]);
    let example = |k: crate::QueryKind| match k {
        crate::QueryKind::Duel => (Query::Duel(p(0.0), p(1.0)), Answer::Duel { first_wins: true }),
        crate::QueryKind::Evaluate => (Query::Evaluate(p(0.0)), Answer::Value(1.0)),
        crate::QueryKind::Label => (Query::Label(p(0.0)), Answer::Label { accept: false }),
        crate::QueryKind::Choice => (Query::Choice(vec![p(0.0), p(1.0), p(2.0)]), Answer::Choice { index: 2 }),
    };
    for k in crate::QueryKind::ALL {
        let (q, _) = example(k);
        assert_eq!(q.kind(), k);
        for other in crate::QueryKind::ALL {
            assert_eq!(q.check_answer(&example(other).1).is_ok(), other == k, "{k} answered by {other}");
        }
    }
}

//! "Did you mean" suggestions for a misspelt name (an algorithm, a test function, a spec enum's
//! variant, a preset): the one rule every part of bohf uses.

/// The closest of `names` to `given` by Levenshtein distance ([`strsim::levenshtein`]), compared
/// case-insensitively, if it is close enough to be a likely typo: a distance of at most half the
/// longer name's length (in bytes), and at least 1. Ties go to the name first in sorted order.
pub fn closest_name<'a>(given: &str, names: &[&'a str]) -> Option<&'a str> {
    let given_lower = given.to_lowercase();
    names
        .iter()
        .map(|n| (strsim::levenshtein(&n.to_lowercase(), &given_lower), *n))
        .min()
        .filter(|(d, n)| *d <= (n.len().max(given.len()) / 2).max(1))
        .map(|(_, n)| n)
}

#[cfg(test)]
mod tests {
    use super::closest_name;

    const NAMES: &[&str] = &["pf-ts", "mr-lpf", "maxminlcb", "branin", "hartmann3", "hartmann6"];

    #[test]
    fn a_typo_finds_the_name() {
        assert_eq!(closest_name("pfts", NAMES), Some("pf-ts"));
        assert_eq!(closest_name("brannin", NAMES), Some("branin"));
        assert_eq!(closest_name("maxmin", NAMES), Some("maxminlcb"));
    }

    #[test]
    fn an_exact_name_is_its_own_match() {
        assert_eq!(closest_name("mr-lpf", NAMES), Some("mr-lpf"));
    }

    #[test]
    fn case_is_ignored() {
        assert_eq!(closest_name("BRANIN", NAMES), Some("branin"));
        assert_eq!(closest_name("Pf-Ts", NAMES), Some("pf-ts"));
    }

    #[test]
    fn a_far_name_or_no_names_suggest_nothing() {
        assert_eq!(closest_name("rosenbrock", NAMES), None);
        assert_eq!(closest_name("x", &[]), None);
        // Distance 1 is always close enough, even for one-letter names; 2 is not.
        assert_eq!(closest_name("a", &["b"]), Some("b"));
        assert_eq!(closest_name("ab", &["cd"]), None);
    }

    #[test]
    fn ties_go_to_the_first_name_in_sorted_order() {
        assert_eq!(closest_name("hartmann", NAMES), Some("hartmann3"));
    }
}

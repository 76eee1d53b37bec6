"""`bohf.algorithms()`: the registry, each parameter with its default and meaning."""

import bohf


def test_every_algorithm_and_parameter_is_documented():
    algos = bohf.algorithms()
    names = [a["name"] for a in algos]
    assert {"pf-ts", "mr-lpf", "maxminlcb", "gp-ucb", "gp-ts", "random", "pop-bo"} <= set(names)
    for a in algos:
        assert a["description"] and a["paper"] and a["queries"]
        assert "finite" in a["domains"]
        documented = {p["name"]: p for p in a["parameters"]}
        for p in a["parameters"]:
            assert p["meaning"].strip(), (a["name"], p["name"])
        # Every default of the registry has a row, whose default it equals.
        def walk(prefix, table):
            for k, v in table.items():
                key = prefix + k
                if key in documented:
                    assert documented[key]["default"] == v, (a["name"], key)
                else:
                    assert isinstance(v, dict), (a["name"], key)
                    walk(key + ".", v)

        walk("", a["defaults"])
    pfts = next(a for a in algos if a["name"] == "pf-ts")
    lam = next(p for p in pfts["parameters"] if p["name"] == "inference.mle.lambda")
    assert lam["default"] == 0.05 and "regularisation" in lam["meaning"]

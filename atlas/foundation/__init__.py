"""The ground floor: what every layer may use, importing nothing of Atlas outside this package.

Safe text in and out (`sanitize`, `notices`, `redact`, `url_safety`, `bounded_regex`, `label_names`),
Atlas's error kinds and exceptions (`errors`), settings and where things live (`config`, `limits`, `tls`),
and the one door to files Atlas did not write itself (`statefiles`).
"""

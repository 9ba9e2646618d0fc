"""``shoal compare decisions``: a differential fidelity harness. A scenario (nodes, queues, a
conf, then arrivals and completions over time) is replayed on the real control plane once under
an upstream peer and once under Shoal; what the scenario determines of each run's decisions is
recorded from the API server and the two are diffed.

The scenario, its generator, its manifests and the diff are pure (``scenario``, ``generating``,
``volcano``, ``outcome``); ``recording`` and ``running`` are the shell around a live plane.
"""

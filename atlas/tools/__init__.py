"""Tools the model can call: the registry, the executor, the Orbit read tools and the mock tracker."""

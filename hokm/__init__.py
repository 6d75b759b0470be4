"""The composition root: the ``hokm`` command and the wiring of the layers.

``engine`` <- ``services`` <- ``worker``: each layer imports only those below it.  What a lower
layer needs from a higher one (the gateway's hint advisor and its in-process bot worker) is
handed in here, not imported upward (``tests/test_layers.py`` checks it).
"""

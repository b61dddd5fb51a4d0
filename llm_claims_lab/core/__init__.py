"""What every experiment shares, and nothing experiment-specific: JSON input files
(:mod:`.json_files`), which calibration file judges a device's rows (:mod:`.calibration_files`), the noise
formulas (:mod:`.stats`), devices and their numerics (:mod:`.devices`), the host
allocator (:mod:`.host_memory`), the weight cache (:mod:`.cache`: train once, then load) and its build log
(:mod:`.build_log`), hub reachability (:mod:`.hub`), vector arithmetic on any embedding table (:mod:`.analogy`),
tables as subspaces (:mod:`.subspaces`) and the figure canvas (:mod:`.figures`).

Imports no other sub-package of the library (``tests/test_library_layout.py``). Files are written atomically
(:mod:`.atomic`) into directories checked first (:mod:`.paths`); input faults are :class:`.errors.InputFault`. The
library imports neither pytest nor the claims harness (``tests/test_library_layout.py``).
"""

"""One module per algorithm: functors, a driver and the public function, CUDA functors beside it
(``graphtier.ALGORITHMS`` names them)."""

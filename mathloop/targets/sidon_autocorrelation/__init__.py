"""Target `sidon-autocorrelation`: exact upper bounds on the autocorrelation constant C1a."""

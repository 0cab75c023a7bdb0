"""The layer users touch: building and opening stores, what every query gets, validation and
verification; the package (``graphtier``) names its API, each module imported on first use."""

"""Own-data domains written blind (issue 51): generators written from ``CONTRACT.md`` alone, a fixed
tuning / held-out split (``split.json``), and the measurements over them."""

"""The venue hub's web page (``dingo-companion hub``): every table live, the evening's results."""

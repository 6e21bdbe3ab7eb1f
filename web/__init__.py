"""The tablet page: Flask app (``web.app.create_app``), JSON API, event stream, OpenAPI file."""

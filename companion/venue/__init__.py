"""A venue of many tables: each table publishes to an MQTT broker, one hub shows them all.

``summary`` (pure: state and results from a game's state JSON), ``journal`` (the per-table
sequence numbers over the session log), ``publisher`` (the table's background publisher),
``hubstore`` / ``receiver`` / ``results`` (the hub). Messages and topics: docs/venue.md.
"""

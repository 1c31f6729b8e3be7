// Shared pieces of the web server tests.

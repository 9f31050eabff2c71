"""The app layer: the Textual App, its screens, the action flows and the command line."""

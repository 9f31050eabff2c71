"""The widgets: Line-API panes that draw what core hands them, through widgets/plain.py."""

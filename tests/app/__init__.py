"""The real app driven with keys through Pilot."""

"""What every wing uses: the sanitiser, glyphs, JavaScript values, problems, where pi keeps things."""

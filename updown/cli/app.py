"""Placeholder entry point; replaced by the typer app."""

def main() -> None:
    print("updown")

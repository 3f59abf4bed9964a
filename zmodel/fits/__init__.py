"""Calibrations of the layered models against the documented numbers (beside the layers)."""

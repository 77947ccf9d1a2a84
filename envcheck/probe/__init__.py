"""The probe: collects facts about this machine without trusting the user."""

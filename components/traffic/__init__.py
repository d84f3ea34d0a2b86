"""The traffic a stack declares it must serve: read by the capacity plan and by the simulation, below both.

profile.py (the traffic profile, its pydantic models and its JSON Schema, traffic_profile.schema.json),
workload.py (requests drawn from a profile: arrival times and token counts). The capacity plan sizes
``maxNumSeqs`` on the request sizes a profile declares (components/capacity/plan.py); the simulation
(components/simulate/) replays the same requests. docs/simulate.md documents the profile.
"""

// Placeholder: the trace demo is being written.
print("TraceDemo")

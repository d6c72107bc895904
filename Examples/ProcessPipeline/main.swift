// Placeholder: the ProcessPipeline example (generate → compress → checksum) is being written.
print("ProcessPipeline")

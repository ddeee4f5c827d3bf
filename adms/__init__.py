"""ADMS: Model Analyzer (window-sized subgraphs), Processor Monitor and priority Scheduler."""

"""The baselines ADMS is compared with: vanilla TFLite and Band (MobiSys'22, mrsnu/band)."""

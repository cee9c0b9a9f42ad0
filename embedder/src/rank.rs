//! Which rank this process is, known before MPI_Init from the launcher's
//! environment (OpenMPI, MPICH/Hydra, PMIx, Slurm). Used only to keep
//! start-up notices to one rank; MPI itself is the authority once it runs.
pub fn launcher_rank() -> Option<u32> {
    const VARS: [&str; 5] = ["OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "PALS_RANKID", "SLURM_PROCID"];
    VARS.iter().find_map(|v| std::env::var(v).ok()?.parse().ok())
}

/// True on the rank that should print job-wide notices (rank 0, or a
/// process started without a launcher).
pub fn is_leader() -> bool {
    launcher_rank().map_or(true, |r| r == 0)
}

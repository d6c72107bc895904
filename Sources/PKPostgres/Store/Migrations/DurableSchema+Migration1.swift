#if Postgres
    /// Migration 1: the jobs, their dependencies and the exclusive categories held.
    extension DurableSchema {
        var migration1: String {
            """
            CREATE SEQUENCE \(name).lease_tokens;
            CREATE SEQUENCE \(name).graph_ids;
            CREATE TABLE \(jobs) (
                id bigserial PRIMARY KEY,
                kind text NOT NULL,
                state text NOT NULL
                    CHECK (state IN ('blocked', 'available', 'running', 'completed', 'failed', 'cancelled')),
                priority integer NOT NULL DEFAULT 0,
                run_at timestamptz NOT NULL DEFAULT now(),
                input jsonb,
                input_from bigint,
                output jsonb,
                errors jsonb NOT NULL DEFAULT '[]',
                attempt integer NOT NULL DEFAULT 0,
                max_attempts integer NOT NULL DEFAULT 1,
                retry jsonb NOT NULL,
                unique_key text UNIQUE,
                graph_id bigint,
                pending_dependencies integer NOT NULL DEFAULT 0,
                ignore_failed_dependencies boolean NOT NULL DEFAULT false,
                categories text[] NOT NULL DEFAULT '{}',
                lease_owner text,
                lease_token bigint,
                lease_expires_at timestamptz,
                cancel_requested boolean NOT NULL DEFAULT false,
                created_at timestamptz NOT NULL DEFAULT now(),
                started_at timestamptz,
                finished_at timestamptz
            );
            CREATE INDEX jobs_available ON \(jobs) (priority DESC, run_at, id) WHERE state = 'available';
            CREATE INDEX jobs_running ON \(jobs) (lease_expires_at) WHERE state = 'running';
            CREATE INDEX jobs_graph ON \(jobs) (graph_id) WHERE graph_id IS NOT NULL;
            CREATE INDEX jobs_finished ON \(jobs) (finished_at) WHERE finished_at IS NOT NULL;
            CREATE TABLE \(dependencies) (
                depends_on bigint NOT NULL REFERENCES \(jobs) (id) ON DELETE CASCADE,
                job_id bigint NOT NULL REFERENCES \(jobs) (id) ON DELETE CASCADE,
                PRIMARY KEY (depends_on, job_id)
            );
            CREATE INDEX dependencies_job ON \(dependencies) (job_id);
            CREATE TABLE \(exclusive) (
                category text PRIMARY KEY,
                job_id bigint NOT NULL,
                lease_token bigint NOT NULL
            );
            """
        }
    }
#endif

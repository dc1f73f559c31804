from baton_agent_runner.entrypoints.main import main

main()

-- One database per service: services own their data and never read another's tables.
-- Runs once, when the PostgreSQL volume is first initialised.
CREATE DATABASE baton_workflow;
CREATE DATABASE baton_agent;
CREATE DATABASE baton_space;
CREATE DATABASE baton_trigger;

//! Rating tables: the rating event log, ratings per ladder, the results cursor.

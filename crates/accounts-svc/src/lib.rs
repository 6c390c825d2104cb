//! The Accounts service: who the players are, their tokens, passwords and sessions. A room of
//! its own: its store (`hanniball-accounts`), its auth and this service, reached by the other
//! services of the same process as a [`Directory`] ([`lookup::LocalAccounts`]) and by those of
//! other processes through its gRPC API (`Directory::remote`). `hanniball serve --only accounts`
//! runs it alone on its own database.

use std::sync::Arc;

use hanniball_db::{Db, StoreError};
use hanniball_proto::accounts::v1::accounts_server::AccountsServer;
use hanniball_svc_kit::auth::{Auth, Caller, Grant, Scope};
use hanniball_svc_kit::{AdminToken, Clock, Directory};
use tokio_util::sync::CancellationToken;
use tonic::Request;
use tonic::server::NamedService;
use tonic::service::RoutesBuilder;

pub mod error;
pub mod lookup;
mod password;
mod service;
mod sessions;

pub use service::AccountsService;

use error::ServiceResult;

/// What Accounts' handlers share: its store, its auth, its clock.
#[derive(Debug)]
pub struct Room {
    pub accounts: hanniball_accounts::Accounts,
    pub directory: Directory,
    pub auth: Auth,
    pub clock: Clock,
    pub shutdown: CancellationToken,
}

impl Room {
    /// The caller, if its token holds `scope` (README, "Token scopes").
    pub(crate) async fn caller<T>(
        &self,
        request: &Request<T>,
        scope: Scope,
    ) -> ServiceResult<Caller> {
        Ok(self
            .auth
            .caller(request.metadata(), &self.directory, scope)
            .await?)
    }

    /// What the caller's token grants, if it holds `scope`.
    pub(crate) async fn grant<T>(
        &self,
        request: &Request<T>,
        scope: Scope,
    ) -> ServiceResult<Grant> {
        let grant = self.auth.grant(request.metadata(), &self.directory).await?;
        grant.require(scope)?;
        Ok(grant)
    }

    /// Fails unless the caller is the admin.
    pub(crate) async fn admin<T>(&self, request: &Request<T>) -> ServiceResult<()> {
        Ok(self.caller(request, Scope::Admin).await?.require_admin()?)
    }
}

/// The Accounts service, ready to be served on any listener, alone or beside the others.
#[derive(Clone, Debug)]
pub struct Accounts {
    room: Arc<Room>,
}

impl Accounts {
    /// The full name of its gRPC service (for health reporting).
    pub const SERVICE_NAMES: [&'static str; 1] =
        [<AccountsServer<AccountsService> as NamedService>::NAME];

    /// Applies the pending migrations of Accounts' tables in `db`.
    pub async fn migrate(db: &Db) -> Result<(), StoreError> {
        hanniball_accounts::Accounts::open(db).await?;
        Ok(())
    }

    /// Opens Accounts' tables in `db` (applying their migrations) and follows revocations until
    /// `shutdown`.
    pub async fn build(
        db: &Db,
        admin_token: AdminToken,
        clock: Clock,
        shutdown: CancellationToken,
    ) -> Result<Accounts, StoreError> {
        let accounts = hanniball_accounts::Accounts::open(db).await?;
        let directory = Directory::local(lookup::LocalAccounts(accounts.clone()));
        let auth = Auth::new(admin_token).with_clock({
            let clock = clock.clone();
            move || clock.now()
        });
        tokio::spawn(auth.follow(&directory, shutdown.clone()));
        Ok(Accounts {
            room: Arc::new(Room {
                accounts,
                directory,
                auth,
                clock,
                shutdown,
            }),
        })
    }

    /// Accounts as the other services of this process ask it.
    #[must_use]
    pub fn directory(&self) -> &Directory {
        &self.room.directory
    }

    /// Accounts' store (tests look inside).
    #[must_use]
    pub fn store(&self) -> &hanniball_accounts::Accounts {
        &self.room.accounts
    }

    /// Adds the Accounts service to `routes`.
    pub fn add_to(&self, routes: &mut RoutesBuilder) {
        routes.add_service(
            AccountsServer::new(AccountsService {
                room: Arc::clone(&self.room),
            })
            .max_decoding_message_size(hanniball_svc_kit::MAX_REQUEST_BYTES),
        );
    }
}
